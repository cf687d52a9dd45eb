package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestFeatureBranchPushCostsNothing: a push to a branch that is neither a
// draft nor the deployment branch makes porchbot fetch nothing and call
// nothing.
func TestFeatureBranchPushCostsNothing(t *testing.T) {
	t.Parallel()
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

// TestFeatureBranchPullRequestIsAProposal (#12): a pull request from
// feature/x that changes a package is labelled porch/proposed, rendered
// without a push to its branch, checked for approval, and not published
// when merged without one.
func TestFeatureBranchPullRequestIsAProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "feature/x")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 4", 1))
	w.git(dir, "commit", "-q", "-am", "Four UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pushed := w.git(dir, "rev-parse", "HEAD")
	pr := w.openPull("alice", repo, "feature/x", "Scale the UPF")
	w.settle()
	if labels := w.labels(repo, pr.GetNumber()); !contains(labels, "porch/proposed") {
		t.Fatalf("labels of a feature-branch proposal: %v", labels)
	}
	if head := w.branchSHA(repo, "feature/x"); head != pushed {
		t.Fatalf("porchbot pushed to feature/x: %s, pushed %s", head, pushed)
	}
	if run := w.checkRunMaybe(repo, pushed, "porchbot/render"); run == nil || run.GetStatus() != "completed" {
		t.Fatalf("no render check on the feature branch's head: %+v", run)
	}
	if run := w.checkRun(repo, pushed, "porchbot/approval"); run.GetConclusion() != "action_required" {
		t.Fatalf("approval of an unreviewed feature branch: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	w.wantRefused(repo, pr.GetNumber(), merged, "did not meet the approval policy")
}

// TestFeatureBranchOutsidePackagesIsNoProposal: a pull request that
// changes no package gets no label and no check.
func TestFeatureBranchOutsidePackagesIsNoProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "feature/readme")
	w.write(dir, "README.md", "# catalog\n\nWords only.\n")
	w.git(dir, "commit", "-q", "-am", "Words")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, "feature/readme", "Words")
	w.settle()
	if labels := w.labels(repo, pr.GetNumber()); len(labels) != 0 {
		t.Fatalf("labels %v", labels)
	}
	if run := w.checkRunMaybe(repo, w.git(dir, "rev-parse", "HEAD"), "porchbot/approval"); run != nil {
		t.Fatalf("approval check on a pull request that changes no package: %s", run.GetOutput().GetTitle())
	}
}

// TestFeatureBranchRemovingAPackageIsADeletionProposal: a pull request
// from any branch that only removes a package is labelled
// porch/deletion-proposed and checked for approval.
func TestFeatureBranchRemovingAPackageIsADeletionProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "cleanup/basens")
	w.git(dir, "rm", "-q", "-r", "basens")
	w.git(dir, "commit", "-q", "-m", "Retire basens")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, "cleanup/basens", "Retire basens")
	w.settle()
	if labels := w.labels(repo, pr.GetNumber()); len(labels) != 1 || labels[0] != "porch/deletion-proposed" {
		t.Fatalf("labels of a branch that removes a package: %v", labels)
	}
	head := w.git(dir, "rev-parse", "HEAD")
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "action_required" {
		t.Fatalf("approval of an unreviewed deletion: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	if run := w.checkRunMaybe(repo, head, "porchbot/render"); run != nil {
		t.Fatalf("a removed package was rendered: %s", run.GetOutput().GetTitle())
	}
}

// featureProposal pushes feature/x with four UPF replicas and opens its
// pull request as alice.
func (w *world) featureProposal(repo string) (*github.PullRequest, string) {
	w.t.Helper()
	return w.branchProposal(repo, "feature/x", "network/upf/deployment.yaml", "replicas: 1", "replicas: 4", "Scale the UPF")
}

// branchProposal pushes branch from main with old replaced by new in file
// and opens its pull request as alice; it returns the pull request and the
// pushed head.
func (w *world) branchProposal(repo, branch, file, old, new, title string) (*github.PullRequest, string) {
	w.t.Helper()
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	w.write(dir, file, strings.Replace(readFile(w.t, dir, file), old, new, 1))
	w.git(dir, "commit", "-q", "-am", title)
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pushed := w.git(dir, "rev-parse", "HEAD")
	return w.openPull("alice", repo, branch, title), pushed
}

// TestRejectFeatureBranchProposal: /porch reject closes a proposal from
// feature/x, removes its label, keeps the branch and says so.
func TestRejectFeatureBranchProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, pushed := w.featureProposal(repo)
	w.settle()
	c := w.comment("bob", repo, pr.GetNumber(), `/porch reject "not now"`)
	w.settle()
	reply := w.replyTo(repo, pr.GetNumber(), c).GetBody()
	if !strings.Contains(reply, "closed") || !strings.Contains(reply, "`feature/x` stays") {
		t.Fatalf("reply to /porch reject of a feature-branch proposal:\n%s", reply)
	}
	if got := w.pull(repo, pr.GetNumber()); got.GetState() != "closed" || got.GetMerged() {
		t.Fatalf("rejected proposal is %s (merged %v)", got.GetState(), got.GetMerged())
	}
	if labels := w.labels(repo, pr.GetNumber()); contains(labels, "porch/proposed") {
		t.Fatalf("a rejected proposal keeps porch/proposed: %v", labels)
	}
	if head := w.branchSHA(repo, "feature/x"); head != pushed {
		t.Fatalf("feature/x after the reject: %q, want %s", head, pushed)
	}
}

// TestResyncRepairsALostFeatureBranchProposal: the opened webhook of a
// feature-branch pull request that changes a package is lost; the resync
// labels it, renders it and checks its approval.
func TestResyncRepairsALostFeatureBranchProposal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	pr, head := w.featureProposal(repo)
	w.settle()
	fg.SetFaults(forge.Faults{})
	if labels := w.labels(repo, pr.GetNumber()); len(labels) != 0 {
		t.Fatalf("labelled with every webhook lost: %v", labels)
	}
	rep, err := w.resync(repo)
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	if !slices.Contains(rep.ProposalsEvaluated, pr.GetNumber()) {
		t.Fatalf("the resync did not evaluate #%d: %v", pr.GetNumber(), rep.ProposalsEvaluated)
	}
	if labels := w.labels(repo, pr.GetNumber()); !contains(labels, "porch/proposed") {
		t.Fatalf("labels after the resync: %v", labels)
	}
	if run := w.checkRunMaybe(repo, head, "porchbot/render"); run == nil || run.GetStatus() != "completed" {
		t.Fatalf("no render check on the head after the resync: %+v", run)
	}
	if run := w.checkRunMaybe(repo, head, "porchbot/approval"); run == nil || run.GetConclusion() != "action_required" {
		t.Fatalf("approval check after the resync: %+v", run)
	}
}
