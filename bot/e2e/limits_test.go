package e2e

import (
	"strings"
	"testing"
)

// starlarkKptfile is a package whose pipeline runs source as starlark.
func starlarkKptfile(name, source string) string {
	lines := strings.Split(strings.TrimRight(source, "\n"), "\n")
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n  annotations:\n" +
		"    config.kubernetes.io/local-config: \"true\"\npipeline:\n  mutators:\n" +
		"    - image: gcr.io/kpt-fn/starlark:v0.4.3\n      configMap:\n        source: |\n          " +
		strings.Join(lines, "\n          ") + "\n"
}

// pushDraft pushes a new package on a draft branch and returns the head.
func (w *world) pushDraft(pkg string, files map[string]string) string {
	w.t.Helper()
	dir := w.clone("alice", "acme/catalog")
	w.git(dir, "switch", "-q", "-c", "drafts/"+pkg+"/try")
	for p, c := range files {
		w.write(dir, pkg+"/"+p, c)
	}
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Add "+pkg)
	w.git(dir, "push", "-q", "origin", "HEAD")
	head := w.git(dir, "rev-parse", "HEAD")
	w.settle()
	return strings.TrimSpace(head)
}

const labelsEverything = `for r in ctx.resource_list["items"]:
    r["metadata"]["labels"] = {"seen": str(len(str(r)))}
`

// TestAttackRenderBombsFailTheirCheckOnly: a package whose starlark
// function reads a 1 KiB alias bomb, and one whose starlark doubles a
// string forever, each fail their own render check naming the limit; the
// server stays up and the next package renders, with its starlark print
// output on the check run.
func TestAttackRenderBombsFailTheirCheckOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "--fn-memory", "134217728")
	bomb := readFile(t, "../../testdata/attacks", "billion-laughs.yaml")
	if len(bomb) > 1024 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	for _, tc := range []struct {
		pkg   string
		files map[string]string
		want  []string
	}{
		{"laughs", map[string]string{"Kptfile": starlarkKptfile("laughs", labelsEverything), "bomb.yaml": bomb},
			[]string{"Rendering `laughs`", "bomb.yaml: input too large: the number of YAML alias references", "the limit is 10000"}},
		{"doubling", map[string]string{"Kptfile": starlarkKptfile("doubling", "s = \"x\"\nwhile True:\n    s = s + s\n"),
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			[]string{"gcr.io/kpt-fn/starlark:v0.4.3", "exceeded its memory limit of 128 MiB", "fn-memory"}},
	} {
		head := w.pushDraft(tc.pkg, tc.files)
		run := w.checkRun("acme/catalog", head, "porchbot/render")
		out := run.GetOutput().GetSummary() + run.GetOutput().GetText()
		if run.GetConclusion() != "failure" {
			t.Errorf("%s: render check %s: %s", tc.pkg, run.GetConclusion(), out)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: render check lacks %q:\n%s", tc.pkg, want, out)
			}
		}
	}
	// the server is up and renders the next package; print output shows
	head := w.pushDraft("fine", map[string]string{
		"Kptfile": starlarkKptfile("fine", "print(\"labelled by starlark\")\n"+labelsEverything),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
	branch := w.branchSHA("acme/catalog", "drafts/fine/try")
	run := w.checkRun("acme/catalog", branch, "porchbot/render")
	if run.GetConclusion() != "success" || !strings.Contains(run.GetOutput().GetText(), "labelled by starlark") {
		t.Fatalf("fine (pushed %s, head %s): render check %s:\n%s\n%s", head, branch, run.GetConclusion(),
			run.GetOutput().GetSummary(), run.GetOutput().GetText())
	}
}
