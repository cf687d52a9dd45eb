package e2e

import "testing"

// TestFeatureBranchPushCostsNothing: a push to a branch that is neither a
// draft nor the deployment branch makes porchbot fetch nothing and call
// nothing.
func TestFeatureBranchPushCostsNothing(t *testing.T) {
	w := newWorld(t)
	dir := w.clone("alice", "acme/catalog")
	w.git(dir, "switch", "-q", "-c", "feature/readme")
	w.write(dir, "README.md", "# catalog\n\nA feature branch.\n")
	w.git(dir, "commit", "-q", "-am", "Feature work")
	gitBefore := w.svc.Git.Stats()
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	if after := w.svc.Git.Stats(); after != gitBefore {
		t.Fatalf("a feature-branch push made porchbot use git: %+v -> %+v", gitBefore, after)
	}
	for _, d := range w.svc.Embedded.Forge.Deliveries() {
		if d.Event == "push" && d.Status == 0 {
			t.Fatalf("push not delivered: %+v", d.Err)
		}
	}
}
