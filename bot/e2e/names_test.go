package e2e

import (
	"strings"
	"testing"
)

// TestNamesKyamlRefusesRender: a draft of a package named café/ holding
// extra+dev.yaml (names kyaml's in-memory file system refuses) is rendered
// and checked like any other, and a draft whose Kptfile is an old schema
// gets a completed failed check saying so, instead of a log line.
func TestNamesKyamlRefusesRender(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/café/w1")
	w.write(dir, "café/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: café\n"+
		"pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n")
	w.write(dir, "café/extra+dev.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n")
	w.git(dir, "add", ".")
	w.git(dir, "commit", "-q", "-m", "A café package")
	w.git(dir, "push", "-q", "origin", "HEAD")
	pushed := w.git(dir, "rev-parse", "HEAD")
	w.settle()

	head := w.branchSHA(repo, "drafts/café/w1")
	if head == pushed {
		t.Fatal("no Render commit")
	}
	if run := w.checkRun(repo, head, "porchbot/render"); run.GetStatus() != "completed" || run.GetConclusion() != "success" {
		t.Fatalf("render check: %s %s %q", run.GetStatus(), run.GetConclusion(), run.GetOutput().GetTitle())
	}
	w.git(dir, "pull", "-q", "origin", "drafts/café/w1")
	if got := readFile(t, dir, "café/extra+dev.yaml"); !strings.Contains(got, "namespace: prod") {
		t.Fatalf("extra+dev.yaml not rendered:\n%s", got)
	}

	// an old Kptfile schema: a completed failed check that says how to fix it
	w.git(dir, "switch", "-q", "-c", "drafts/old/w1", "origin/main")
	w.write(dir, "old/Kptfile", "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: old\n")
	w.write(dir, "old/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n")
	w.git(dir, "add", ".")
	w.git(dir, "commit", "-q", "-m", "An old package")
	w.git(dir, "push", "-q", "origin", "HEAD")
	old := w.git(dir, "rev-parse", "HEAD")
	w.settle()
	run := w.checkRun(repo, old, "porchbot/render")
	sum := run.GetOutput().GetSummary()
	if run.GetStatus() != "completed" || run.GetConclusion() != "failure" || !strings.Contains(sum, "Error: invalid Kptfile:") ||
		!strings.Contains(sum, "old/Kptfile:1:13:") || !strings.Contains(sum, "Upgrade the package") {
		t.Fatalf("render check of the old schema: %s %s\n%s", run.GetStatus(), run.GetConclusion(), sum)
	}
}
