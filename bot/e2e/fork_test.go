package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestForkRendersWithBuiltinsOnly: an exec function declared by the
// repository and allowed by the server runs on a draft of the repository,
// and never on a pull request from a fork (SPEC §9), whose porchbot/render
// says the exec function was skipped and why.
//
// The fork is a real one on the forge: carol forks acme/catalog, pushes to
// her fork and opens the pull request from it; porchbot hears of it by the
// webhook and reads the head as GitHub publishes it, refs/pull/<N>/head.
func TestForkRendersWithBuiltinsOnly(t *testing.T) {
	t.Parallel()
	w, dir, ran := stampWorld(t, "exec sed 's/replicas: 1$/replicas: 2/'")
	const repo = "acme/catalog"
	if run := w.checkRunMaybe(repo, w.branchSHA(repo, "main"), "porchbot/config"); run != nil {
		t.Fatalf("the config with the exec function is reported: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	// A draft of the repository: the exec function runs, and its output is
	// pushed as the Render commit.
	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/stamp")
	w.write(dir, "network/upf/Kptfile", readFile(t, dir, "network/upf/Kptfile")+"    - exec: stamp\n")
	w.git(dir, "commit", "-q", "-am", "Stamp the UPF")
	w.git(dir, "push", "-q", "origin", "HEAD")
	pushed := w.git(dir, "rev-parse", "HEAD")
	w.settle()
	head := w.branchSHA(repo, "drafts/network/upf/stamp")
	if head == pushed {
		t.Fatal("no Render commit: the exec function did not change anything")
	}
	if dep, _ := w.file(repo, head, "network/upf/deployment.yaml"); !strings.Contains(dep, "replicas: 2") {
		t.Fatalf("the exec function's output is not in the draft:\n%s", dep)
	}
	if run := w.checkRun(repo, head, "porchbot/render"); run.GetConclusion() != "success" {
		t.Fatalf("render check of the draft: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
	before := ran()
	if before == 0 {
		t.Fatal("the exec function never ran")
	}

	// The same change from a fork: carol, who may only read acme/catalog,
	// forks it, pushes the change to a branch of her fork and opens a pull
	// request from "carol:stamp". The App is not installed on her fork.
	carol := w.client("carol")
	forkDir, forkHead := carolStampsInAFork(t, w)
	branches := w.git(dir, "ls-remote", "origin", "refs/heads/*")
	forkBranches := w.git(forkDir, "ls-remote", "origin", "refs/heads/*")
	pr, _, err := carol.PullRequests.Create(w.ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Stamp the UPF"),
		Head: github.String("carol:stamp"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	number := pr.GetNumber()
	if pr.GetHead().GetRepo().GetFullName() != "carol/catalog" || pr.GetHead().GetSHA() != forkHead {
		t.Fatalf("the pull request's head: %s at %s", pr.GetHead().GetRepo().GetFullName(), pr.GetHead().GetSHA())
	}
	w.settle()

	if got := ran(); got != before {
		t.Fatalf("the exec function ran %d more time(s) for the fork", got-before)
	}
	run := w.checkRunMaybe(repo, forkHead, "porchbot/render")
	if run == nil {
		t.Fatal("no porchbot/render on the fork's head")
	}
	out := run.GetOutput()
	if run.GetConclusion() != "failure" || !strings.Contains(out.GetTitle(), "1 exec function(s) not run") ||
		!strings.Contains(out.GetSummary(), "forks are rendered with porchbot's built-in functions only") {
		t.Fatalf("render check of the fork: %s %q\n%s", run.GetConclusion(), out.GetTitle(), out.GetSummary())
	}
	if !strings.Contains(out.GetText(), "stamp") || !strings.Contains(out.GetText(), "skipped") {
		t.Fatalf("the check does not show the skipped exec step:\n%s", out.GetText())
	}
	// A proposal like any other: judged by the same verdict (carol's
	// change has no approval), labelled, and nothing pushed for it: not to
	// the repository, not to the fork.
	appr := w.checkRunMaybe(repo, forkHead, "porchbot/approval")
	if appr == nil {
		t.Fatal("no porchbot/approval on the fork's head")
	}
	if appr.GetConclusion() != "action_required" || !strings.Contains(appr.GetOutput().GetTitle(), "Waiting for approval (0/") {
		t.Fatalf("approval check of the fork: %s %q\n%s", appr.GetConclusion(), appr.GetOutput().GetTitle(), appr.GetOutput().GetSummary())
	}
	if labels := w.labels(repo, number); !contains(labels, "porch/proposed") {
		t.Fatalf("the fork's pull request is not labelled porch/proposed: %v", labels)
	}
	if got := w.git(dir, "ls-remote", "origin", "refs/pull/"+strconv.Itoa(number)+"/head"); !strings.HasPrefix(got, forkHead) {
		t.Fatalf("the fork's head moved: %s, want %s", got, forkHead)
	}
	if got := w.git(dir, "ls-remote", "origin", "refs/heads/*"); got != branches {
		t.Fatalf("branches changed for the fork:\n%s\nwere:\n%s", got, branches)
	}
	if got := w.git(forkDir, "ls-remote", "origin", "refs/heads/*"); got != forkBranches {
		t.Fatalf("the fork's branches changed:\n%s\nwere:\n%s", got, forkBranches)
	}
}
