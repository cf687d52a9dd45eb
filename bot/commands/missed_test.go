package commands_test

import (
	"context"
	"slices"
	"strings"
	"testing"

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
