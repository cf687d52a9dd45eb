package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// publishChecks are the porchbot/publish check runs on ref.
func (w *world) publishChecks(repo, ref string) []*github.CheckRun {
	w.t.Helper()
	owner, n := splitRepo(repo)
	res, _, err := w.client("alice").Checks.ListCheckRunsForRef(w.ctx, owner, n, ref,
		&github.ListCheckRunsOptions{CheckName: github.String("porchbot/publish")})
	if err != nil {
		w.t.Fatal(err)
	}
	return res.CheckRuns
}

// pushStraightToMain commits a change of basens to main as alice, no pull
// request, and returns the pushed commit.
func (w *world) pushStraightToMain(repo string) string {
	w.t.Helper()
	dir := w.clone("alice", repo)
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(w.t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "55"`, 1))
	w.git(dir, "commit", "-q", "-am", "Fifty-five pods, straight to main")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	return w.git(dir, "rev-parse", "HEAD")
}

// wantWaitingForApprover: exactly one porchbot/publish check run on
// commit, saying basens waits for an approver's /porch publish.
func (w *world) wantWaitingForApprover(repo, commit string) {
	w.t.Helper()
	runs := w.publishChecks(repo, commit)
	if len(runs) != 1 {
		w.t.Fatalf("%d porchbot/publish check runs on the pushed commit %s, want 1", len(runs), commit)
	}
	cr := runs[0]
	if cr.GetConclusion() != "action_required" || !strings.Contains(cr.GetOutput().GetSummary(), "`/porch publish basens`") {
		w.t.Fatalf("porchbot/publish on %s: %s %q\n%s", commit, cr.GetConclusion(), cr.GetOutput().GetTitle(), cr.GetOutput().GetSummary())
	}
}

// TestDirectPushWaitsForAnApprover: a push straight to main that changes
// basens gets a porchbot/publish check run saying it waits for an
// approver's /porch publish; the resync does not post a second one.
func TestDirectPushWaitsForAnApprover(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pushed := w.pushStraightToMain(repo)
	w.settle()
	w.wantWaitingForApprover(repo, pushed)
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	w.wantWaitingForApprover(repo, pushed)
}

// TestResyncMarksALostDirectPush: the push webhook is lost; the resync
// gives the pushed commit its porchbot/publish check run, once.
func TestResyncMarksALostDirectPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	pushed := w.pushStraightToMain(repo)
	w.settle()
	fg.SetFaults(forge.Faults{})
	if runs := w.publishChecks(repo, pushed); len(runs) != 0 {
		t.Fatalf("a check run with the push webhook lost: %d", len(runs))
	}
	for range 2 {
		if _, err := w.resync(repo); err != nil {
			t.Fatal(err)
		}
		w.settle()
		w.wantWaitingForApprover(repo, pushed)
	}
}

// TestApproverCannotPublishTheirOwnDirectPush: alice, an approver, pushes
// straight to main; her own /porch publish does not count (self-approval is
// off), bob's does and names him.
func TestApproverCannotPublishTheirOwnDirectPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pushed := w.pushStraightToMain(repo)
	w.settle()
	w.wantWaitingForApprover(repo, pushed)
	issue := w.createIssue("alice", repo, "Publish basens")
	c := w.comment("alice", repo, issue, "/porch publish basens")
	w.settle()
	if tags := w.tags(repo, "basens/"); len(tags) != 0 {
		t.Fatalf("alice published her own direct push: %v", tags)
	}
	if reply := w.replyTo(repo, issue, c).GetBody(); !strings.Contains(reply, "they pushed it") {
		t.Fatalf("reply to alice's /porch publish:\n%s", reply)
	}
	w.comment("bob", repo, issue, "/porch publish basens")
	w.settle()
	if tags := w.tags(repo, "basens/"); len(tags) != 1 || tags["basens/v1"] != pushed {
		t.Fatalf("bob's /porch publish: %v, want basens/v1 on %s", tags, pushed)
	}
}
