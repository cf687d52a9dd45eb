package e2e

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
)

// setReplicas changes the UPF's replicas in alice's clone dir and pushes
// it to pull request n; it returns the new head.
func (w *world) setReplicas(dir string, n int, from, to string) string {
	w.t.Helper()
	dep := readFile(w.t, dir, "network/upf/deployment.yaml")
	if !strings.Contains(dep, "replicas: "+from+"\n") {
		w.t.Fatalf("the UPF deployment has no replicas: %s", from)
	}
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(dep, "replicas: "+from+"\n", "replicas: "+to+"\n", 1))
	return w.pushAll(dir, n, to+" UPF replicas")
}

// lostComment posts a comment whose webhook the forge loses (as when
// porchbot's queue is full), and returns it with that delivery.
func (w *world) lostComment(user, repo string, n int, body string) (*github.IssueComment, forge.Delivery) {
	w.t.Helper()
	fg := w.svc.Embedded.Forge
	w.settle()
	fg.SetFaults(forge.Faults{DropWebhooks: 1})
	c := w.comment(user, repo, n, body)
	return c, w.lostDelivery(c)
}

// lostDelivery waits for the forge to have sent (and lost) the comment's
// "created" webhook, clears the faults and returns that delivery.
func (w *world) lostDelivery(c *github.IssueComment) forge.Delivery {
	w.t.Helper()
	fg := w.svc.Embedded.Forge
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	if err := fg.WaitDeliveries(ctx); err != nil {
		w.t.Fatal(err)
	}
	fg.SetFaults(forge.Faults{})
	for _, d := range fg.Deliveries() {
		if d.Event == "issue_comment" && d.Action == "created" &&
			strings.Contains(string(d.Payload), `"id":`+strconv.FormatInt(c.GetID(), 10)+`,`) {
			if !d.Dropped {
				w.t.Fatalf("the webhook of comment %d was delivered", c.GetID())
			}
			return d
		}
	}
	w.t.Fatalf("no webhook of comment %d", c.GetID())
	return forge.Delivery{}
}

// deliverLate hands porchbot a webhook the forge lost, as a late delivery
// would (same id and payload, signed), and waits for what it causes.
func (w *world) deliverLate(d forge.Delivery) {
	w.t.Helper()
	f := &fleet{secret: w.svc.Embedded.WebhookSecret, client: &http.Client{Timeout: 30 * time.Second}}
	if err := f.post(w.ctx, w.svc.HookURL, d); err != nil {
		w.t.Fatal(err)
	}
	w.settle()
}

// upfProposalWorld is a world with alice's proposal of network/upf, not
// approved: her clone, the pull request's number and head.
func upfProposalWorld(t *testing.T) (w *world, dir string, n int, head string) {
	t.Helper()
	w = newWorld(t)
	dir, pr := w.openUPF("drafts/network/upf/scale")
	n = pr.GetNumber()
	return w, dir, n, w.pull("acme/catalog", n).GetHead().GetSHA()
}

// resyncSettled runs one resync of repo and waits for what it causes.
func (w *world) resyncSettled(repo string) *resync.Report {
	w.t.Helper()
	rep, err := w.resync(repo)
	if err != nil {
		w.t.Fatal(err)
	}
	w.settle()
	return rep
}

// TestApproveBindsToTheHeadWhenWritten (#21 §3): bob's `/porch approve` is
// written on the head he reviewed; alice pushes a change to the package
// before porchbot gets to the comment. The approval is recorded for the
// head bob saw and does not cover alice's push. When the push and the
// comment fall in the same second, porchbot cannot tell which head bob saw:
// nothing is recorded and the reply says what to do.
func TestApproveBindsToTheHeadWhenWritten(t *testing.T) {
	t.Parallel()
	w, dir, n, seen := upfProposalWorld(t)
	const repo = "acme/catalog"

	c, lost := w.lostComment("bob", repo, n, "/porch approve")
	w.laterSecond()
	pushed := w.setReplicas(dir, n, "3", "50")
	w.deliverLate(lost)
	run := w.checkRun(repo, pushed, "porchbot/approval")
	if run.GetConclusion() == "success" {
		t.Fatalf("bob's /porch approve, written before alice's push, approved it:\n%s", run.GetOutput().GetSummary())
	}
	if !strings.Contains(run.GetOutput().GetSummary(), "stale") {
		t.Errorf("the approval of %s is not reported stale on %s:\n%s", seen, pushed, run.GetOutput().GetSummary())
	}
	reply := w.replyTo(repo, n, c).GetBody()
	if !strings.Contains(reply, "Approval recorded for "+seen[:7]) {
		t.Errorf("the reply does not say which head the approval is for (%s):\n%s", seen[:7], reply)
	}
	records := 0
	for _, bc := range w.botComments(repo, n) {
		if strings.Contains(bc.GetBody(), "porchbot:approve") {
			records++
			if !strings.Contains(bc.GetBody(), `"head":"`+seen+`"`) {
				t.Errorf("the approval record is not for the head bob saw (%s):\n%s", seen, bc.GetBody())
			}
		}
	}
	if records != 1 {
		t.Errorf("%d approval records, want 1", records)
	}

	// The comment and a push in one second: not placed, not counted.
	w.settle()
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1})
	var same *github.IssueComment
	w.sameSecond(func() {
		same = w.commentWith(w.client("bob"), repo, n, "/porch approve")
		pushed = w.setReplicas(dir, n, "50", "7")
	})
	lost = w.lostDelivery(same)
	w.settle()
	w.deliverLate(lost)
	reply = w.replyTo(repo, n, same).GetBody()
	if !strings.Contains(reply, "does not count") || !strings.Contains(reply, "same second") || !strings.Contains(reply, "review") {
		t.Errorf("reply to an approval written in the second of a push:\n%s", reply)
	}
	if run := w.checkRun(repo, pushed, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatalf("an approval written in the second of a push approved it:\n%s", run.GetOutput().GetSummary())
	}

	// Written after the push, it counts.
	w.comment("bob", repo, n, "/porch approve")
	w.settle()
	if run := w.checkRun(repo, pushed, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("bob's approval written after the push: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
}

// TestResyncFoundApproveDoesNotCount (#21 §3): a `/porch approve` whose
// webhook was lost is found by the resync, which reads comments as they are
// now; GitHub dates edits to the second, so its words may not be its
// author's. It is answered, and does not count; a new comment does.
func TestResyncFoundApproveDoesNotCount(t *testing.T) {
	t.Parallel()
	w, _, n, head := upfProposalWorld(t)
	const repo = "acme/catalog"

	c, _ := w.lostComment("bob", repo, n, "/porch approve")
	rep := w.resyncSettled(repo)
	if !slices.Contains(rep.CommandsAnswered, c.GetID()) {
		t.Fatalf("the resync answered %v, not bob's comment %d", rep.CommandsAnswered, c.GetID())
	}
	reply := w.replyTo(repo, n, c).GetBody()
	if !strings.Contains(reply, "does not count") || !strings.Contains(reply, "review") {
		t.Errorf("reply to a resync-found approval:\n%s", reply)
	}
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatalf("a resync-found /porch approve counted:\n%s", run.GetOutput().GetSummary())
	}
	// A new comment counts: one activity listing places it, and the pull
	// request is read once (as many calls as before the binding).
	before := w.stats()
	w.comment("bob", repo, n, "/porch approve")
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("bob's new /porch approve: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	if a, p := callsSince(w, before, "GET /repos/{owner}/{repo}/activity"), callsSince(w, before, "GET /repos/{owner}/{repo}/pulls/{number}"); a != 1 || p != 1 {
		t.Errorf("/porch approve listed activities %d times and read the pull request %d times, want once each", a, p)
	}
}

// TestEditedIntoApproveRunsNothing (#21 §3): alice (admin, the proposal's
// author, whose own approval would be self-approval) edits bob's remark
// into `/porch approve` in the second he wrote it, its webhook lost. The
// "edited" webhook runs nothing; the resync finds a comment that looks
// unedited and does not run it as bob's approval.
func TestEditedIntoApproveRunsNothing(t *testing.T) {
	t.Parallel()
	w, _, n, head := upfProposalWorld(t)
	const repo = "acme/catalog"
	owner, name := splitRepo(repo)

	w.settle()
	w.svc.Embedded.Forge.SetFaults(forge.Faults{DropWebhooks: 1})
	var c *github.IssueComment
	w.sameSecond(func() {
		c = w.commentWith(w.client("bob"), repo, n, "I will look at the render first.")
		edited, _, err := w.client("alice").Issues.EditComment(w.ctx, owner, name, c.GetID(),
			&github.IssueComment{Body: github.String("/porch approve")})
		if err != nil {
			t.Fatal(err)
		}
		if !edited.GetUpdatedAt().Equal(edited.GetCreatedAt()) {
			t.Fatalf("the edit is dated apart from the comment: %v, %v", edited.GetCreatedAt(), edited.GetUpdatedAt())
		}
	})
	w.lostDelivery(c)
	w.settle()
	if len(w.eyes(repo, c.GetID())) != 0 || len(w.botComments(repo, n)) != 0 {
		t.Fatal("porchbot acted on an edited comment's webhook")
	}

	rep := w.resyncSettled(repo)
	t.Logf("resync answered %v", rep.CommandsAnswered)
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatalf("alice's words in bob's comment counted as bob's approval:\n%s", run.GetOutput().GetSummary())
	}
	for _, bc := range w.botComments(repo, n) {
		if strings.Contains(bc.GetBody(), "porchbot:approve") {
			t.Fatalf("an approval recorded from the edited comment:\n%s", bc.GetBody())
		}
	}
	if reply := w.replyTo(repo, n, c).GetBody(); !strings.Contains(reply, "does not count") {
		t.Errorf("reply to the edited comment found by the resync:\n%s", reply)
	}
}
