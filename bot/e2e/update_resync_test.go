package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestUpdateResync: the webhooks of the upstream merge are lost, so no
// publish and no fan-out happen; the resync of the upstream publishes v2,
// and the resync of each downstream repository makes its update pull
// request. A second resync changes nothing.
func TestUpdateResync(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	branch := w.pushUpstreamDraft("v2", upstreamV2(w))
	w.settle()
	w.landDraftDropped(upstreamRepo, branch)
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

// TestUpgradeCommand: with no fan-out (the upstream merge's webhooks were
// lost and only the upstream's resync published v2), alice asks for
// edge-1's update with /porch upgrade: the reply links the update pull
// request; she is its requester, so her own approval does not count and
// bob's does.
func TestUpgradeCommand(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	branch := w.pushUpstreamDraft("v2", upstreamV2(w))
	w.settle()
	w.landDraftDropped(upstreamRepo, branch)
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v2"]
	if v2sha == "" || len(w.updatePulls("acme/edge-1")) != 0 {
		t.Fatalf("setup: v2 at %q, %d update pull requests", v2sha, len(w.updatePulls("acme/edge-1")))
	}
	issue := w.createIssue("alice", "acme/edge-1", "Take v2")
	c := w.comment("alice", "acme/edge-1", issue, "/porch upgrade upf --to v2")
	w.settle()
	pr := w.checkUpdate("acme/edge-1", upstreamPkg+"/v2", v2sha)
	if reply := w.replyTo("acme/edge-1", issue, c).GetBody(); !strings.Contains(reply, "Opened the update of `upf` to `network/upf/v2`") ||
		!strings.Contains(reply, fmt.Sprintf("#%d", pr.GetNumber())) {
		t.Fatalf("reply: %s", reply)
	}
	head := w.branchSHA("acme/edge-1", updateBranch)
	w.approve("alice", "acme/edge-1", pr.GetNumber())
	w.settle()
	if run := w.checkRun("acme/edge-1", head, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatal("the requester's own approval counted")
	}
	w.approve("bob", "acme/edge-1", pr.GetNumber())
	w.settle()
	if run := w.checkRun("acme/edge-1", head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("bob's approval: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
}

// landDraftDropped lands a draft with bob's approval, every webhook of
// the merge lost.
func (w *world) landDraftDropped(repo, branch string) {
	w.t.Helper()
	pr := w.openPull("alice", repo, branch, "Upstream change")
	w.settle()
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	w.svc.Embedded.Forge.SetFaults(forge.Faults{DropWebhooks: 1000})
	w.merge("alice", repo, pr.GetNumber())
	w.settle()
	w.svc.Embedded.Forge.SetFaults(forge.Faults{})
}
