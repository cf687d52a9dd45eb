package e2e

import (
	"strings"
	"testing"
)

// brokenConfig loosens the approval policy (anyone with write access,
// self-approval) but misspells allowSelfApproval: unknown keys are errors,
// so none of it may take effect.
const brokenConfig = `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
packages:
  root: .
lifecycle:
  publishOn: merge
  releases: true
approvals:
  required: 1
  approvers: []
  allowSelfAproval: true
`

// brokenLine is the line of the unknown key in brokenConfig.
const brokenLine = 11

// TestRepositoryConfig: a pull request editing .github/porchbot.yaml gets
// porchbot/config, failing with an annotation on the unknown key's line;
// once the broken file is merged, main's head carries a failing
// porchbot/config and the bot keeps the last good configuration (approvals
// from @acme/platform, no self-approval).
func TestRepositoryConfig(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	alice := w.client("alice")

	dir := w.clone("alice", repo)
	if got := strings.Split(brokenConfig, "\n")[brokenLine-1]; !strings.Contains(got, "allowSelfAproval") {
		t.Fatalf("line %d of the broken config is %q", brokenLine, got)
	}
	w.git(dir, "switch", "-q", "-c", "loosen-approvals")
	w.write(dir, ".github/porchbot.yaml", brokenConfig)
	w.git(dir, "commit", "-q", "-am", "Let anyone with write access approve")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, "loosen-approvals", "Loosen approvals")
	w.settle()

	run := w.checkRun(repo, pr.GetHead().GetSHA(), "porchbot/config")
	if run.GetConclusion() != "failure" {
		t.Fatalf("config check of the pull request: %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	anns, _, err := alice.Checks.ListCheckRunAnnotations(w.ctx, "acme", "catalog", run.GetID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].GetPath() != ".github/porchbot.yaml" || anns[0].GetStartLine() != brokenLine ||
		anns[0].GetAnnotationLevel() != "failure" || !strings.Contains(anns[0].GetMessage(), "allowSelfAproval") ||
		!strings.Contains(anns[0].GetMessage(), "allowSelfApproval") {
		for _, a := range anns {
			t.Logf("annotation %s:%d %s %q", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel(), a.GetMessage())
		}
		t.Fatalf("want one failure annotation at .github/porchbot.yaml:%d naming the key and its fix", brokenLine)
	}

	// alice merges it anyway.
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	if head := w.branchSHA(repo, "main"); head != merged {
		t.Fatalf("main at %s, the merge is %s", head, merged)
	}
	run = w.checkRun(repo, merged, "porchbot/config")
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), "last good configuration") ||
		!strings.Contains(run.GetOutput().GetSummary(), ".github/porchbot.yaml:11:") {
		t.Fatalf("config check on main: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// A proposal under the broken file: the last good policy judges it.
	// alice's own approval does not count (the broken file would allow it),
	// bob's does as a member of @acme/platform.
	dir = w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/scale")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 3", 1))
	w.git(dir, "commit", "-q", "-am", "Three UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	prop := w.openPull("alice", repo, "drafts/network/upf/scale", "Scale the UPF")
	w.settle()
	w.comment("alice", repo, prop.GetNumber(), "/porch approve")
	w.settle()
	head := w.pull(repo, prop.GetNumber()).GetHead().GetSHA()
	run = w.checkRun(repo, head, "porchbot/approval")
	sum := run.GetOutput().GetSummary()
	if run.GetConclusion() == "success" || !strings.Contains(sum, "self-approval") || !strings.Contains(sum, "@acme/platform") ||
		!strings.Contains(sum, "the last good one applies") {
		t.Fatalf("approval under a broken config after alice's own approval: %s\n%s", run.GetConclusion(), sum)
	}
	w.approve("bob", repo, prop.GetNumber())
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval by bob under the last good config: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
}
