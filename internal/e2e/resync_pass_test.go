package e2e

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle"
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
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	w.publishFound(repo, w.firstCommit(repo), "basens")
	if w.branchSHA(repo, index.DefaultBranch) == "" {
		t.Fatal("no package index after a publish")
	}
	issue := w.createIssue("alice", repo, "Questions")
	deps := w.svc.ResyncDeps()
	deps.BeforePass = nil
	list := w.svc.App.InstalledRepos(w.svc.Clients)
	pass := func() map[string]int64 {
		t.Helper()
		before := fg.Stats().Snapshot()
		lifecycle.ResyncPass(w.ctx, list, w.svc.App.Opener.Open, deps)
		d := forge.StatsDelta(before, fg.Stats().Snapshot())
		w.settle()
		return d
	}
	pass()
	pass()
	if quiet := pass(); forge.SumCounted(quiet) > 1 || forge.SumNotModified(quiet) == 0 {
		t.Fatalf("a quiet pass after two: %d counted calls, %d answered 304: %v", forge.SumCounted(quiet), forge.SumNotModified(quiet), quiet)
	}

	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/basens/quota")
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "60"`, 1))
	w.git(dir, "commit", "-q", "-am", "Sixty pods")
	w.git(dir, "push", "-q", "origin", "HEAD")
	head := w.git(dir, "rev-parse", "HEAD")
	pr := w.openPull("alice", repo, "drafts/basens/quota", "Sixty pods")
	c := w.comment("bob", repo, issue, "/porch help")
	w.git(dir, "push", "-q", "origin", "--delete", index.DefaultBranch)
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
