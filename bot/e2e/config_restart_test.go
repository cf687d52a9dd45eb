package e2e

import (
	"strings"
	"testing"
)

// TestRestartWithABrokenConfigKeepsTheLastGood: acme/catalog says
// publishOn: never, then a broken file lands on main. A fresh porchbot
// process (a replica that never read the good file) must still run the
// repository on the last good version from main's history: a merged
// proposal is not published, and porchbot/config on main names the commit
// whose version is in force.
func TestRestartWithABrokenConfigKeepsTheLastGood(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	cfg := readFile(t, dir, ".github/porchbot.yaml")
	if !strings.Contains(cfg, "publishOn: merge") {
		t.Fatalf("seeded config:\n%s", cfg)
	}
	w.write(dir, ".github/porchbot.yaml", strings.Replace(cfg, "publishOn: merge", "publishOn: never", 1))
	w.git(dir, "commit", "-q", "-am", "Publish by hand only")
	w.git(dir, "push", "-q", "origin", "HEAD")
	never := w.git(dir, "rev-parse", "HEAD")
	w.settle()
	w.write(dir, ".github/porchbot.yaml", strings.Replace(cfg, "publishOn: merge", "publishOn: merge\n  relases: false", 1))
	w.git(dir, "commit", "-q", "-am", "Back to publishing on merge (with a typo)")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()

	// The restart: only a new process receives the webhooks from now on.
	f := newFleet(t, w, 1)
	f.replicas, f.orders = f.replicas[1:], f.orders[1:]
	before := w.tags(repo, "network/upf/")

	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/scale")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 3", 1))
	w.git(dir, "commit", "-q", "-am", "Three UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	f.settle()
	pr := w.openPull("alice", repo, "drafts/network/upf/scale", "Scale the UPF")
	f.settle()
	w.approve("bob", repo, pr.GetNumber())
	f.settle()
	merged := w.merge("alice", repo, pr.GetNumber())
	f.settle()

	if after := w.tags(repo, "network/upf/"); len(after) != len(before) {
		t.Fatalf("published under publishOn: never after a restart: tags %v, before %v", after, before)
	}
	run := w.checkRun(repo, merged, "porchbot/config")
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), "as of "+never[:7]) ||
		!strings.Contains(run.GetOutput().GetSummary(), never) {
		t.Fatalf("config check on the landing: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}
