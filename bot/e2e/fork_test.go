package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestForkRendersWithBuiltinsOnly: an exec function declared by the
// repository and allowed by the server runs on a draft of the repository,
// and never on a pull request from a fork (SPEC §9), whose porchbot/render
// says the exec function was skipped and why.
//
// The forge has no forks (it refuses heads from other repositories), so the
// fork's pull_request event is built here and handed to the App's handler,
// as the webhook would; everything else is the real forge. The fork's head
// is published as refs/pull/<N>/head, as GitHub publishes it.
func TestForkRendersWithBuiltinsOnly(t *testing.T) {
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

	// The same change from a fork: a commit on main published as
	// refs/pull/<N>/head. The forge's pull request #N holds its reviews,
	// comments and labels; it is opened from a branch with every webhook
	// lost, so porchbot hears of it only as the fork's event below.
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	w.git(dir, "switch", "-q", "--detach", "origin/main")
	w.write(dir, "network/upf/Kptfile", readFile(t, dir, "network/upf/Kptfile")+"    - exec: stamp\n")
	w.git(dir, "commit", "-q", "-am", "Stamp the UPF (from a fork)")
	forkHead := w.git(dir, "rev-parse", "HEAD")
	w.git(dir, "push", "-q", "origin", "HEAD:refs/heads/mallory-stamp")
	number := w.openPull("alice", repo, "mallory-stamp", "Stamp the UPF").GetNumber()
	w.git(dir, "push", "-q", "origin", "HEAD:refs/pull/"+strconv.Itoa(number)+"/head")
	w.settle()
	fg.SetFaults(forge.Faults{})

	alice := w.client("alice")
	base, _, err := alice.Repositories.Get(w.ctx, "acme", "catalog")
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	mallory := &github.User{Login: github.String("mallory"), Type: github.String("User")}
	fork := &github.Repository{Name: github.String("catalog"), FullName: github.String("mallory/catalog"),
		Owner: mallory, Fork: github.Bool(true)}
	pr := &github.PullRequest{Number: github.Int(number), State: github.String("open"), User: mallory,
		Title: github.String("Stamp the UPF"),
		Head: &github.PullRequestBranch{Ref: github.String("stamp"), SHA: github.String(forkHead),
			Label: github.String("mallory:stamp"), Repo: fork, User: mallory},
		Base: &github.PullRequestBranch{Ref: github.String("main"), SHA: github.String(w.branchSHA(repo, "main")),
			Label: github.String("acme:main"), Repo: base}}
	ev := &github.PullRequestEvent{Action: github.String("opened"), Number: github.Int(number), PullRequest: pr,
		Repo: base, Sender: mallory, Installation: &github.Installation{ID: github.Int64(id)}}
	branches := w.git(dir, "ls-remote", "origin", "refs/heads/*")
	if err := w.svc.App.OnPullRequest(w.ctx, id, ev); err != nil {
		t.Fatal(err)
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
	// A proposal like any other: judged by the same verdict (mallory's
	// change has no approval), labelled, and nothing pushed for it.
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
}
