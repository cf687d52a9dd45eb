package commands_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestHandleClaimsOnce: the 👀 reaction is a compare-and-swap. A comment
// handled twice (two replicas, or a replica and a resync) is run and
// answered once; the second run makes only the claim call, answered 200.
func TestHandleClaimsOnce(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	ev := h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch init network/upf")
	if _, reply := h.run(t, ev); !strings.Contains(reply, "✅") {
		t.Fatalf("first run:\n%s", reply)
	}
	calls, reply := h.run(t, ev)
	if reply != "" || total(calls) != 1 || calls[reactionCall] != 1 {
		t.Fatalf("second run of the same comment: calls %v, reply %q", calls, reply)
	}
}

// TestAnswerMissed: comments that no webhook brought are answered once, in
// the order they were written; answered ones and comments without
// commands are left alone, and a reply marker counts only in porchbot's
// own comments. (Edited ones are too, but the forge's clock,
// like GitHub's timestamps, has a resolution of a second.)
func TestAnswerMissed(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	ctx := context.Background()
	answered := h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch help")
	if _, reply := h.run(t, answered); reply == "" {
		t.Fatal("no reply")
	}
	missed1 := h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch init a")
	h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "no command here")
	missed2 := h.comment(t, forgetest.BobToken, "catalog", n, "bob", "/porch init b")
	// A reply marker written by a user is no reply.
	h.comment(t, forgetest.CarolToken, "catalog", n, "carol", "<!-- porchbot:reply-to "+itoa64(missed2.CommentID)+" -->")

	ran, err := h.runner.AnswerMissed(ctx, h.repo("catalog"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{missed1.CommentID, missed2.CommentID}; !slices.Equal(ran, want) {
		t.Fatalf("answered %v, want %v", ran, want)
	}
	replies := 0
	for _, c := range h.comments(t, "catalog", n) {
		if c.GetUser().GetType() == "Bot" {
			replies++
		}
	}
	if replies != 3 {
		t.Fatalf("%d replies, want 3 (help, a, b)", replies)
	}
	if ran, err := h.runner.AnswerMissed(ctx, h.repo("catalog"), 0); err != nil || len(ran) != 0 {
		t.Fatalf("second pass answered %v (%v)", ran, err)
	}
}

// TestAnswerMissedTakesOverAbandonedClaim: a replica that put 👀 on a
// comment and stopped before replying leaves a claim nobody answers. A
// resync leaves a recent claim alone (its owner may still be running the
// command); once the claim is older than the command deadline plus a
// margin, one resync takes the comment over with 🚀, runs it and says so in
// the reply; a later resync, or a second replica, does not run it again.
func TestAnswerMissedTakesOverAbandonedClaim(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	ctx := context.Background()
	ev := h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch init network/upf")
	// The replica that died: its claim, and nothing else.
	gh, err := h.clients.Installation(ctx, h.env.Installation.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, "acme", "catalog", ev.CommentID, "eyes"); err != nil {
		t.Fatal(err)
	}

	// Now: the claim is fresh; nothing runs.
	if ran, err := h.runner.AnswerMissed(ctx, h.repo("catalog"), 0); err != nil || len(ran) != 0 {
		t.Fatalf("a fresh claim was taken over: ran %v (%v)", ran, err)
	}
	if h.branchExists(t, "catalog", "drafts/network/upf/v1") {
		t.Fatal("the command ran under a fresh claim")
	}

	// Past the deadline: two replicas' resyncs, one takeover.
	later := time.Now().Add(commands.DefaultCommandTimeout + 6*time.Minute)
	h.runner.Now = func() time.Time { return later }
	other := *h.runner
	ran1, err1 := h.runner.AnswerMissed(ctx, h.repo("catalog"), 0)
	ran2, err2 := other.AnswerMissed(ctx, h.repo("catalog"), 0)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(ran1)+len(ran2) != 1 {
		t.Fatalf("takeovers: %v and %v, want exactly one", ran1, ran2)
	}
	if !h.branchExists(t, "catalog", "drafts/network/upf/v1") {
		t.Fatal("the taken-over command did not run")
	}
	var replies []string
	for _, c := range h.comments(t, "catalog", n) {
		if c.GetUser().GetType() == "Bot" {
			replies = append(replies, c.GetBody())
		}
	}
	if len(replies) != 1 || !strings.Contains(replies[0], "A first attempt at these commands started at") {
		t.Fatalf("replies %q", replies)
	}
	rs, _, err := gh.Reactions.ListIssueCommentReactions(ctx, "acme", "catalog", ev.CommentID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, r := range rs {
		contents = append(contents, r.GetContent())
	}
	slices.Sort(contents)
	if !slices.Equal(contents, []string{"eyes", "rocket"}) {
		t.Fatalf("reactions %v, want the claim and the takeover", contents)
	}
	if ran, err := h.runner.AnswerMissed(ctx, h.repo("catalog"), 0); err != nil || len(ran) != 0 {
		t.Fatalf("answered again: %v (%v)", ran, err)
	}
}

// TestAnswerMissedRunsWriterVerbsOnly: a comment the resync finds is read
// as it is now, and a writer may have changed its words in the second it
// was written. What needs no more than write access runs (init); what acts
// on the author's own standing (propose records them as requester,
// clone reads another repository as them) is answered, not run.
func TestAnswerMissedRunsWriterVerbsOnly(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	found := h.comment(t, forgetest.AliceToken, "catalog", n, "alice",
		"/porch init a\n/porch propose a/v1\n/porch clone acme/catalog/a@v1 b")
	ran, err := h.runner.AnswerMissed(context.Background(), h.repo("catalog"), 0)
	if err != nil || !slices.Equal(ran, []int64{found.CommentID}) {
		t.Fatalf("answered %v (%v), want [%d]", ran, err, found.CommentID)
	}
	var reply string
	for _, c := range h.comments(t, "catalog", n) {
		if c.GetUser().GetType() == "Bot" {
			reply = c.GetBody()
		}
	}
	for _, want := range []string{"✅ `/porch init a`", "🚫 `/porch propose a/v1`", "🚫 `/porch clone acme/catalog/a@v1 b`", "comment it again"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply has no %q:\n%s", want, reply)
		}
	}
	if got := h.fake.Calls(); slices.ContainsFunc(got, func(c string) bool { return strings.HasPrefix(c, "propose") }) {
		t.Errorf("a found /porch propose ran: %v", got)
	}
}
