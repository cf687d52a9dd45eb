package e2e

import (
	"strings"
	"testing"
)

// TestApproveThatDoesNotCountSaysWhy (#26 §4): a `/porch approve` the
// policy does not count gets one reply, without the green mark, saying
// why: carol has read access (not an approver); alice wrote the proposal
// (self-approval). bob's counts, with the green mark.
func TestApproveThatDoesNotCountSaysWhy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	w.pushSixtyPods("drafts/basens/quota")
	pr := w.openPull("alice", repo, "drafts/basens/quota", "Sixty pods")
	w.settle()
	n := pr.GetNumber()

	for _, tc := range []struct{ user, want string }{
		{"carol", "not an approver"},
		{"alice", "self-approval"},
	} {
		before := len(w.botComments(repo, n))
		c := w.comment(tc.user, repo, n, "/porch approve")
		w.settle()
		body := w.replyTo(repo, n, c).GetBody()
		if strings.Contains(body, "✅") || !strings.Contains(body, "This approval does not count") || !strings.Contains(body, tc.want) {
			t.Errorf("%s's /porch approve: reply\n%s", tc.user, body)
		}
		if all := w.botComments(repo, n); len(all)-before != 1 {
			for _, b := range all[before:] {
				t.Logf("porchbot:\n%s", b.GetBody())
			}
			t.Errorf("%s's /porch approve: %d comments by porchbot, want one", tc.user, len(all)-before)
		}
	}
	c := w.comment("bob", repo, n, "/porch approve")
	w.settle()
	if body := w.replyTo(repo, n, c).GetBody(); !strings.Contains(body, "✅") || !strings.Contains(body, "Approval recorded") {
		t.Errorf("bob's /porch approve: reply\n%s", body)
	}
}
