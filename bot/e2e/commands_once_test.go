package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
)

// TestReplicasAnswerACommandOnce: three replicas receive the delivery of
// one /porch init comment, all at once. Exactly one runs it: one draft
// branch, one 👀 by porchbot, one reply.
func TestReplicasAnswerACommandOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fl := newFleet(t, w, 2)
	const repo = "acme/catalog"
	issue := w.createIssue("alice", repo, "Package requests")
	fl.settle()
	c := w.comment("alice", repo, issue, "/porch init network/amf")
	fl.settle()

	replies := 0
	for _, bc := range w.botComments(repo, issue) {
		if strings.HasPrefix(bc.GetBody(), "@alice") {
			replies++
		}
	}
	if replies != 1 {
		t.Fatalf("%d replies to one command by three replicas, want 1:\n%v", replies, w.botComments(repo, issue))
	}
	if body := w.replyTo(repo, issue, c).GetBody(); !strings.Contains(body, "✅") || !strings.Contains(body, "drafts/network/amf/v1") {
		t.Fatalf("reply:\n%s", body)
	}
	if w.branchSHA(repo, "drafts/network/amf/v1") == "" {
		t.Fatal("no draft drafts/network/amf/v1")
	}
	if n := len(w.eyes(repo, c.GetID())); n != 1 {
		t.Fatalf("%d 👀 by porchbot, want 1", n)
	}
}

// TestFullQueueCommandAnsweredByResync: a /porch comment delivered while
// the queue is full is refused with 503, and GitHub does not redeliver it.
// The next resync answers it, once; a second resync leaves it alone.
func TestFullQueueCommandAnsweredByResync(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "--queue-size", "1")
	fg := w.svc.Embedded.Forge
	const repo = "acme/catalog"
	// one at a time: each issue's "issues" event must leave the one-event
	// queue before the next comes
	issue := w.createIssue("alice", repo, "Package requests")
	w.settle()
	other := w.createIssue("alice", "acme/edge-1", "Questions")
	w.settle()

	// A command on acme/edge-1 whose calls the forge holds up, so that its
	// event fills the one-event queue while the next comment is delivered.
	fg.SetFaults(forge.Faults{LatencyMs: 3000, PathPrefix: "/repos/acme/edge-1"})
	w.comment("alice", "acme/edge-1", other, "/porch help")
	c := w.comment("alice", repo, issue, "/porch init network/amf")
	ctx, cancel := context.WithTimeout(w.ctx, 2*time.Minute)
	defer cancel()
	if err := fg.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	fg.SetFaults(forge.Faults{})
	if err := w.svc.Bot.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	var refused []forge.Delivery
	for _, d := range fg.Deliveries() {
		if d.Event == "issue_comment" && d.Repo == repo {
			refused = append(refused, d)
		}
	}
	if len(refused) != 1 || refused[0].Status != http.StatusServiceUnavailable {
		t.Fatalf("the comment's deliveries: %+v, want one answered 503 (queue full)", refused)
	}
	if n := len(w.botComments(repo, issue)); n != 0 || w.branchSHA(repo, "drafts/network/amf/v1") != "" {
		t.Fatalf("the refused comment was run (%d bot comments)", n)
	}

	resync := func() *resync.Report {
		t.Helper()
		rep, err := w.resync(repo)
		if err != nil {
			t.Fatal(err)
		}
		if err := fg.WaitDeliveries(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w.svc.Bot.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	before := w.stats()
	rep := resync()
	if !slices.Equal(rep.CommandsAnswered, []int64{c.GetID()}) {
		t.Fatalf("resync answered %v, want [%d]", rep.CommandsAnswered, c.GetID())
	}
	if body := w.replyTo(repo, issue, c).GetBody(); !strings.Contains(body, "✅") || !strings.Contains(body, "drafts/network/amf/v1") {
		t.Fatalf("reply:\n%s", body)
	}
	if w.branchSHA(repo, "drafts/network/amf/v1") == "" {
		t.Fatal("no draft drafts/network/amf/v1")
	}
	t.Logf("resync answering one command: %d comment list calls", callsSince(w, before, "GET /repos/{owner}/{repo}/issues/comments"))

	before = w.stats()
	if rep := resync(); len(rep.CommandsAnswered) != 0 {
		t.Fatalf("the second resync answered %v again", rep.CommandsAnswered)
	}
	if n := len(w.botComments(repo, issue)); n != 1 {
		t.Fatalf("%d bot comments after two resyncs, want one reply", n)
	}
	if n := callsSince(w, before, "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"); n != 0 {
		t.Fatalf("the second resync made %d reaction calls for an answered command", n)
	}
	if n := callsSince(w, before, "GET /repos/{owner}/{repo}/issues/comments"); n != 1 {
		t.Fatalf("the second resync listed comments %d times, want once", n)
	}
}

// eyes are porchbot's 👀 on a comment.
func (w *world) eyes(repo string, commentID int64) []*github.Reaction {
	w.t.Helper()
	owner, name := splitRepo(repo)
	rs, _, err := w.client("alice").Reactions.ListIssueCommentReactions(w.ctx, owner, name, commentID, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []*github.Reaction
	for _, r := range rs {
		if r.GetUser().GetLogin() == botLogin && r.GetContent() == "eyes" {
			out = append(out, r)
		}
	}
	return out
}

// callsSince is the forge's count of one route's REST calls since before.
func callsSince(w *world, before map[string]int64, route string) int64 {
	return w.stats()[route] - before[route]
}

// resync runs one resync of repo as the periodic loop does, with the
// App's hooks.
func (w *world) resync(repo string) (*resync.Report, error) {
	w.t.Helper()
	s := w.session(repo)
	deps := w.svc.ResyncDeps() // as the periodic loop runs it
	return resync.Repository(w.ctx, s, deps.API(s), deps)
}
