package rendercheck_test

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
)

// TestRenderDraftGatekeeperViolationsAnnotateTheResources: a draft whose
// Kptfile runs gatekeeper over the package's own ConstraintTemplate and
// constraints fails its render on a deny violation, and each violation
// becomes an annotation on the resource's file (a warn violation a
// warning); nothing is pushed.
func TestRenderDraftGatekeeperViolationsAnnotateTheResources(t *testing.T) {
	h := lifecycletest.New(t)
	policy := `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: minreplicas
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  crd: {spec: {names: {kind: MinReplicas}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package minreplicas
        violation[{"msg": msg}] {
          input.review.object.spec.replicas < input.parameters.min
          msg := sprintf("%v has %v replicas, fewer than %v", [input.review.object.metadata.name, input.review.object.spec.replicas, input.parameters.min])
        }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: MinReplicas
metadata:
  name: at-least-two
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  match: {kinds: [{apiGroups: ["apps"], kinds: ["Deployment"]}]}
  parameters: {min: 2}
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: MinReplicas
metadata:
  name: three-would-be-better
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  enforcementAction: warn
  match: {kinds: [{apiGroups: ["apps"], kinds: ["Deployment"]}]}
  parameters: {min: 3}
`
	out, pushed := rtRenderNewDraft(t, h, nil, "drafts/apps/web/gk", map[string][]byte{
		"apps/web/Kptfile":         rtKptfile("web", "  validators:\n    - image: gcr.io/kpt-fn/gatekeeper:v0.2.1\n"),
		"apps/web/policy.yaml":     []byte(policy),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	})
	if out.Pushed || out.Conclusion != core.ConclusionFailure || out.Head != pushed {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	levels := map[string]string{}
	for _, a := range rtAnnotations(t, h, run.GetID()) {
		if a.GetPath() != "apps/web/deployment.yaml" {
			t.Errorf("annotation on %s: %q", a.GetPath(), a.GetMessage())
			continue
		}
		for _, c := range []string{"at-least-two", "three-would-be-better"} {
			if strings.Contains(a.GetMessage(), "violatedConstraint: "+c) {
				levels[c] = a.GetAnnotationLevel()
			}
		}
	}
	if levels["at-least-two"] != "failure" || levels["three-would-be-better"] != "warning" {
		t.Errorf("annotation levels %v, want the deny violation a failure and the warn one a warning", levels)
	}
	if text := run.GetOutput().GetText(); !strings.Contains(text, "app has 1 replicas, fewer than 2") {
		t.Errorf("the check does not say the violation:\n%s", text)
	}
}
