package e2e

import (
	"strings"
	"testing"
)

// TestCommandsReusePermissionForAMinute: alice runs two commands in two
// comments; both run, and her permission is looked up once (reused for a
// minute).
func TestCommandsReusePermissionForAMinute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	issue := w.createIssue("alice", repo, "Work")
	w.settle()
	before := w.stats()
	first := w.comment("alice", repo, issue, "/porch init alpha")
	w.settle()
	second := w.comment("alice", repo, issue, "/porch init beta")
	w.settle()
	if reply := w.replyTo(repo, issue, first).GetBody(); !strings.Contains(reply, "drafts/alpha/") {
		t.Fatalf("reply to /porch init alpha:\n%s", reply)
	}
	if reply := w.replyTo(repo, issue, second).GetBody(); !strings.Contains(reply, "drafts/beta/") {
		t.Fatalf("reply to /porch init beta:\n%s", reply)
	}
	if n := callsSince(w, before, "GET /repos/{owner}/{repo}/collaborators/{user}/permission"); n != 1 {
		t.Fatalf("two commands by alice within a minute looked her permission up %d times", n)
	}
}
