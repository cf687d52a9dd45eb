package e2e

import (
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestUpdateResync: the webhooks of the upstream merge are lost, so no
// publish and no fan-out happen; the resync of the upstream publishes v2,
// and the resync of each downstream repository makes its update pull
// request. A second resync changes nothing.
func TestUpdateResync(t *testing.T) {
	w, _ := updateWorld(t)
	branch := w.pushUpstreamDraft("v2", upstreamV2(w))
	w.settle()
	pr := w.openPull("alice", upstreamRepo, branch, "v2")
	w.settle()
	w.approve("bob", upstreamRepo, pr.GetNumber())
	w.settle()
	w.svc.Embedded.Forge.SetFaults(forge.Faults{DropWebhooks: 1000})
	w.merge("alice", upstreamRepo, pr.GetNumber())
	w.settle()
	w.svc.Embedded.Forge.SetFaults(forge.Faults{})
	if got := w.tags(upstreamRepo, upstreamPkg+"/v"); len(got) != 1 {
		t.Fatalf("published without its webhook: %v", got)
	}
	for _, r := range downstreamRepos {
		if n := len(w.updatePulls(r)); n != 0 {
			t.Fatalf("%s: an update before the resync", r)
		}
	}
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v2"]
	if v2sha == "" {
		t.Fatal("the resync did not publish v2")
	}
	for round := 0; round < 2; round++ {
		for _, r := range downstreamRepos {
			if _, err := w.resync(r); err != nil {
				t.Fatal(err)
			}
			w.settle()
		}
	}
	for _, r := range downstreamRepos {
		w.checkUpdate(r, upstreamPkg+"/v2", v2sha)
		if n := len(w.updatePulls(r)); n != 1 {
			t.Fatalf("%s: %d update pull requests after two resyncs", r, n)
		}
		if n := w.updatePushes(r); n != 1 {
			t.Fatalf("%s: %d pushes of the update after two resyncs", r, n)
		}
	}
}
