package e2e

import (
	"strings"
	"testing"
)

// rolloutVariantConfig fans network/upf out to edge-1 and edge-2 as a
// variant whose updates roll out in two waves, a merge meeting the rule.
const rolloutVariantConfig = `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
approvals:
  required: 1
  approvers: ["@acme/platform"]
variants:
  - upstream: {package: network/upf, revision: latest}
    targets:
      repositories: [acme/edge-1, acme/edge-2]
    downstream: {package: upf}
    labels: {tier: edge}
    annotations: {example.com/fleet: edge}
    namespace: "{{ .Repository.Name }}"
    pipeline:
      mutators:
        - image: gcr.io/kpt-fn/set-annotations:v0.1.4
          configMap: {example.com/managed-by: variant}
    injectors: [` + injectorFile + `]
    rollout:
      success: merged
      waves:
        - {name: first, repositories: [acme/edge-1]}
        - {name: second}
`

// TestRolloutOfVariants: a variant's updates go wave by wave too. v3 goes
// to edge-1 only (the variant reports edge-2 held by the rollout); edge-1
// merging it opens edge-2's, with the variant's mutations.
func TestRolloutOfVariants(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	w.pushConfig(rolloutVariantConfig)
	for _, r := range []string{"acme/edge-1", "acme/edge-2"} {
		pr := w.checkVariantClone(r)
		w.approve("bob", r, pr.GetNumber())
		w.settle()
		w.merge("alice", r, pr.GetNumber())
		w.settle()
	}
	v3 := w.publishUpstream("v3", upstreamV2(w))
	if n := len(w.openPullsFrom("acme/edge-1", updateBranch)); n != 1 {
		t.Fatalf("edge-1 (wave first) has %d update pull requests after %s", n, v3)
	}
	if n := len(w.openPullsFrom("acme/edge-2", updateBranch)); n != 0 {
		t.Fatalf("edge-2 (wave second) has %d update pull requests before the first wave merged", n)
	}
	if row := w.tableRow(w.variantsTable(), "acme/edge-2"); !strings.Contains(row, "held by the rollout") {
		t.Errorf("/porch variants row of edge-2: %s", row)
	}
	pr := w.openPullsFrom("acme/edge-1", updateBranch)[0]
	w.approve("bob", "acme/edge-1", pr.GetNumber())
	w.settle()
	w.merge("alice", "acme/edge-1", pr.GetNumber())
	w.settle()
	open := w.openPullsFrom("acme/edge-2", updateBranch)
	if len(open) != 1 {
		t.Fatalf("edge-1 merged %s, yet edge-2 has %d update pull requests", v3, len(open))
	}
	if b := open[0].GetBody(); !strings.Contains(b, "### Variant") || !strings.Contains(b, v3) {
		t.Fatalf("edge-2's update is not the variant's of %s:\n%s", v3, b)
	}
}
