package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/porchbot/porchbot/internal/benchclock"
)

// validateTarget is how many times the CPU time of an in-process
// validation of 1,000 resources kpt running the same function as an exec
// function must take (issue #25: at least 10x faster).
const validateTarget = 10.0

// gatekeeperPolicies are a template set for the generated package: three
// templates, four constraints (deny, warn and dryrun), every resource
// reviewed by at least one.
const gatekeeperPolicies = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: requiredlabels
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  crd: {spec: {names: {kind: RequiredLabels}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package requiredlabels
        violation[{"msg": msg}] {
          have := {k | input.review.object.metadata.labels[k]}
          missing := {k | k := input.parameters.labels[_]} - have
          count(missing) > 0
          msg := sprintf("missing labels %v", [missing])
        }
---
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: pinnedimages
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  crd: {spec: {names: {kind: PinnedImages}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      libs:
        - |
          package lib.images
          unpinned(image) { not contains(image, "@sha256:") }
      rego: |
        package pinnedimages
        import data.lib.images.unpinned
        violation[{"msg": msg}] {
          c := input.review.object.spec.template.spec.containers[_]
          unpinned(c.image)
          msg := sprintf("container %v: image %v is not pinned by digest", [c.name, c.image])
        }
---
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: maxreplicas
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  crd: {spec: {names: {kind: MaxReplicas}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package maxreplicas
        violation[{"msg": msg}] {
          input.review.object.spec.replicas > input.parameters.max
          msg := sprintf("%v replicas, over %v", [input.review.object.spec.replicas, input.parameters.max])
        }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: RequiredLabels
metadata: {name: deployments-have-app, annotations: {config.kubernetes.io/local-config: "true"}}
spec:
  match: {kinds: [{apiGroups: ["apps"], kinds: ["Deployment"]}]}
  parameters: {labels: ["app"]}
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: RequiredLabels
metadata: {name: everything-has-team, annotations: {config.kubernetes.io/local-config: "true"}}
spec:
  enforcementAction: dryrun
  match: {kinds: [{apiGroups: ["", "apps"], kinds: ["ConfigMap", "Service"]}]}
  parameters: {labels: ["team"]}
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: PinnedImages
metadata: {name: pinned, annotations: {config.kubernetes.io/local-config: "true"}}
spec:
  enforcementAction: warn
  match: {kinds: [{apiGroups: ["apps"], kinds: ["Deployment"]}]}
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: MaxReplicas
metadata: {name: at-most-three, annotations: {config.kubernetes.io/local-config: "true"}}
spec:
  match: {kinds: [{apiGroups: ["apps"], kinds: ["Deployment"]}]}
  parameters: {max: 3}
`

// BenchmarkValidateVsKptExec validates the generated package of 1,000
// resources with schema validation (kubeconform, the Kubernetes schemas of
// testdata/kube-schemas) and with a Gatekeeper template set (gatekeeper),
// each in process (Render, fastest of the runs) and, where kpt is
// installed, by `kpt fn render --allow-exec` running the same function as
// `porchbot fn` (an exec function in a process of its own, as kpt runs
// the catalog's image); it reports the ratio of their CPU times (target:
// kpt's at least 10x the in-process render's) and wall times, and the peak
// memory of `porchbot render` and of kpt's run.
func BenchmarkValidateVsKptExec(b *testing.B) {
	porchbot, _ := benchBinary(b)
	kpt, rel, kptErr := findKpt()
	if kptErr != nil {
		b.Logf("no kpt figures: %v", kptErr)
		rel = DefaultKpt
	}
	schemas, err := filepath.Abs(filepath.Join("..", "..", "testdata", "kube-schemas"))
	if err != nil {
		b.Fatal(err)
	}
	var missed []string
	for _, c := range []struct {
		name, pipeline string
		extra          map[string]string
	}{
		{"kubeconform", "pipeline:\n  validators:\n    - image: gcr.io/kpt-fn/kubeconform:latest\n      configMap:\n        ignore_missing_schemas: \"true\"\n", nil},
		{"gatekeeper", "pipeline:\n  validators:\n    - image: gcr.io/kpt-fn/gatekeeper:v0.2.1\n", map[string]string{"policies.yaml": gatekeeperPolicies}},
	} {
		src := filepath.Join(b.TempDir(), "src")
		disk := filesys.MakeFsOnDisk()
		genPackageAt(b, disk, src, 1000, 50, c.pipeline)
		for p, body := range c.extra {
			if err := os.WriteFile(filepath.Join(src, p), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		opts := Options{SchemaDir: schemas, Kpt: rel}
		var in benchclock.Fastest
		work := filepath.Join(b.TempDir(), "work")
		for i := 0; i < b.N; i++ {
			freshCopy(b, src, work)
			in.Run(func() {
				res, err := Render(context.Background(), disk, work, opts)
				if err != nil {
					b.Fatalf("%s: %v", c.name, err)
				}
				if len(res.Results.Items) != 1 {
					b.Fatalf("%s: %d function results", c.name, len(res.Results.Items))
				}
			})
		}
		freshCopy(b, src, work)
		pb := spawn(b, []string{porchbot, "render", "--kpt", string(rel), "--schema-dir", schemas, work}, nil)
		b.ReportMetric(benchclock.MS(in.Wall), c.name+"-inprocess-ms")
		b.ReportMetric(float64(pb.rss)/(1<<20), c.name+"-porchbot-render-MiB")
		if kptErr != nil {
			b.Logf("%-11s in process %.0f ms; porchbot render %.0f ms, peak %.0f MiB", c.name, benchclock.MS(in.Wall),
				benchclock.MS(pb.wall), float64(pb.rss)/(1<<20))
			continue
		}
		// the exec function reads the same schemas (kpt may not pass its
		// environment on to it)
		fns := b.TempDir()
		script := fmt.Sprintf("#!/bin/sh\nPORCHBOT_SCHEMA_DIR=%s exec %s fn %s\n", schemas, porchbot, c.name)
		if err := os.WriteFile(filepath.Join(fns, c.name), []byte(script), 0o755); err != nil {
			b.Fatal(err)
		}
		kr, _ := kptExec(b, kpt, fns, src, "validate-"+c.name)
		// CPU time (kpt's with its exec function's) is the measure: the
		// wall clock of a busy machine says more of the machine
		x := benchclock.Ratio(kr.cpu, in.CPU)
		b.ReportMetric(x, c.name+"-x-less-cpu-than-kpt")
		b.ReportMetric(float64(kr.rss)/(1<<20), c.name+"-kpt-MiB")
		b.Logf("%-11s in process %.0f ms (CPU %.0f ms); kpt fn render --allow-exec (porchbot fn) %.0f ms (CPU %.0f ms): "+
			"%.1fx less CPU time (%.1fx faster); peak memory: porchbot render %.0f MiB, kpt %.0f MiB", c.name,
			benchclock.MS(in.Wall), benchclock.MS(in.CPU), benchclock.MS(kr.wall), benchclock.MS(kr.cpu), x,
			benchclock.Ratio(kr.wall, in.Wall), float64(pb.rss)/(1<<20), float64(kr.rss)/(1<<20))
		if x < validateTarget {
			missed = append(missed, fmt.Sprintf("%s: %.1fx less CPU time than kpt (target %.0fx)", c.name, x, validateTarget))
		}
	}
	if len(missed) > 0 {
		b.Fatalf("targets missed: %v", missed)
	}
}
