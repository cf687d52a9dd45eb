package e2e

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/index"
)

// TestResyncPassRepairsWithWarmCaches (#22): the pass as the service runs
// it, after passes with nothing to do have warmed its conditional requests
// (its listings are answered 304 and cost nothing), still repairs in one
// pass what lost webhooks left undone: a pushed draft gets its render, an
// opened proposal its label, a /porch comment its answer, and a deleted
// porch/index comes back. GitHub's redelivery is left out here (it would
// repair the events themselves: TestRedelivererRepairsLostWebhooks): this
// is the resync's own net.
func TestResyncPassRepairsWithWarmCaches(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	w.publishFound(repo, w.firstCommit(repo), "basens")
	if w.branchSHA(repo, index.DefaultBranch) == "" {
		t.Fatal("no package index after a publish")
	}
	issue := w.createIssue("alice", repo, "Questions")
	deps := w.resyncDepsAlone()
	pass := func() map[string]int64 { return w.resyncPass(deps) }
	pass()
	pass()
	if quiet := pass(); forge.SumCounted(quiet) > 1 || forge.SumNotModified(quiet) == 0 {
		t.Fatalf("a quiet pass after two: %d counted calls, %d answered 304: %v", forge.SumCounted(quiet), forge.SumNotModified(quiet), quiet)
	}

	head := w.pushDraftUnheard("drafts/basens/quota")
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	pr := w.openPull("alice", repo, "drafts/basens/quota", "Sixty pods")
	c := w.comment("bob", repo, issue, "/porch help")
	w.git(w.clone("alice", repo), "push", "-q", "origin", "--delete", index.DefaultBranch)
	w.settle()
	if w.checkRunMaybe(repo, head, "porchbot/render") != nil || len(w.labels(repo, pr.GetNumber())) != 0 ||
		w.branchSHA(repo, index.DefaultBranch) != "" {
		t.Fatal("porchbot heard of what happened while every webhook was lost")
	}
	fg.SetFaults(forge.Faults{})

	pass()
	if w.checkRunMaybe(repo, head, "porchbot/render") == nil {
		t.Error("the lost push: no porchbot/render on the draft's head")
	}
	if labels := w.labels(repo, pr.GetNumber()); len(labels) == 0 {
		t.Errorf("the lost pull request event: #%d has no label", pr.GetNumber())
	}
	if r := w.replyTo(repo, issue, c); !strings.Contains(r.GetBody(), "/porch") {
		t.Errorf("the lost comment's answer:\n%s", r.GetBody())
	}
	if w.branchSHA(repo, index.DefaultBranch) == "" {
		t.Error("the deleted porch/index was not rebuilt")
	}
}
