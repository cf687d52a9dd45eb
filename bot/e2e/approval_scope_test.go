package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// Attacks on the approval verdict (issue #8 §1, #12), each through the
// embedded forge: what was approved is what the check calls approved.

const otherKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: other\ninfo:\n  description: smuggled in after the review\n"

// proposeUPF pushes a draft of network/upf with replicas: 3 as alice,
// opens its pull request and has bob approve it; it returns the clone, the
// pull request and its approved head.
func (w *world) proposeUPF(branch string) (string, *github.PullRequest, string) {
	w.t.Helper()
	const repo = "acme/catalog"
	dir, pr := w.openUPF(branch)
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	head := w.pull(repo, pr.GetNumber()).GetHead().GetSHA()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		w.t.Fatalf("approval after bob's review: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	return dir, pr, head
}

// openUPF pushes a draft of network/upf with replicas: 3 as alice and
// opens its pull request, not approved; it returns the clone and the pull
// request.
func (w *world) openUPF(branch string) (string, *github.PullRequest) {
	w.t.Helper()
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	deployment := readFile(w.t, dir, "network/upf/deployment.yaml")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(deployment, "replicas: 1", "replicas: 3", 1))
	w.git(dir, "commit", "-q", "-am", "Three UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	w.git(dir, "pull", "-q", "--ff-only", "origin", branch)
	pr := w.openPull("alice", repo, branch, "Scale the UPF")
	w.settle()
	return dir, pr
}

// pushAll commits everything in dir and pushes it; it returns the pull
// request's new head, which must be the push (no Render commit on top).
func (w *world) pushAll(dir string, n int, msg string) string {
	w.t.Helper()
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", msg)
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	head := w.pull("acme/catalog", n).GetHead().GetSHA()
	if pushed := w.git(dir, "rev-parse", "HEAD"); head != pushed {
		w.t.Fatalf("the proposal's head %s is not the push %s", head, pushed)
	}
	return head
}

// TestApprovalCoversEveryChangedPackage: after bob approves a draft of
// network/upf, alice pushes a new package other/ to the same branch. The
// approval goes back to pending and says that other was added.
func TestApprovalCoversEveryChangedPackage(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir, pr, _ := w.proposeUPF("drafts/network/upf/smuggle")
	w.write(dir, "other/Kptfile", otherKptfile)
	w.write(dir, "other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  k: v\n")
	head := w.pushAll(dir, pr.GetNumber(), "Add another package")
	run := w.checkRun("acme/catalog", head, "porchbot/approval")
	sum := run.GetOutput().GetSummary()
	if run.GetConclusion() == "success" || !strings.Contains(sum, "stale") || !strings.Contains(sum, "`other` was added") {
		t.Fatalf("approval after a new package was pushed: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), sum)
	}
}

// TestReadinessFlipKeepsApproval (#12): a commit that only sets a
// readiness condition in the Kptfile's status keeps bob's approval, and
// the check says so; the gate then passes.
func TestReadinessFlipKeepsApproval(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	const gate = "acme.dev/LoadTested"
	const branch = "drafts/network/upf/gated"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	kf := readFile(t, dir, "network/upf/Kptfile")
	gated := strings.Replace(kf, "  keywords: [5g, network]\n", "  keywords: [5g, network]\n  readinessGates:\n    - conditionType: "+gate+"\n", 1)
	if gated == kf {
		t.Fatal("the seed Kptfile changed: cannot add the readiness gate")
	}
	cond := func(status string) string {
		return gated + "status:\n  conditions:\n    - type: " + gate + "\n      status: \"" + status + "\"\n      reason: LoadTest\n"
	}
	w.write(dir, "network/upf/Kptfile", cond("False"))
	w.git(dir, "commit", "-q", "-am", "Gate the UPF on its load test")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	w.git(dir, "pull", "-q", "--ff-only", "origin", branch)
	pr := w.openPull("alice", repo, branch, "Gate the UPF")
	w.settle()
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	head := w.pull(repo, pr.GetNumber()).GetHead().GetSHA()
	run := w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), gate) {
		t.Fatalf("approved with the gate unmet: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// Automation sets the condition True: nothing else changes.
	w.write(dir, "network/upf/Kptfile", cond("True"))
	head = w.pushAll(dir, pr.GetNumber(), "LoadTested: True")
	run = w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() != "success" || !strings.Contains(run.GetOutput().GetSummary(), "only Kptfile status.conditions changed") {
		t.Fatalf("approval after a readiness flip: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// Any other change to the Kptfile dismisses the approval.
	w.write(dir, "network/upf/Kptfile", strings.Replace(cond("True"), "keywords: [5g, network]", "keywords: [5g, network, edge]", 1))
	head = w.pushAll(dir, pr.GetNumber(), "Another keyword")
	run = w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "`network/upf` changed") {
		t.Fatalf("approval after a Kptfile change: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}

// TestRequesterIsNotReadFromTheBody (#8): alice proposes with
// /porch propose, edits the pull request body to name carol as the
// requester, and approves herself: it is still self-approval.
func TestRequesterIsNotReadFromTheBody(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/basens/forged")
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "70"`, 1))
	w.git(dir, "commit", "-q", "-am", "Seventy pods")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	issue := w.createIssue("alice", repo, "Quota")
	w.comment("alice", repo, issue, "/porch propose basens/forged")
	w.settle()
	pr := w.pullFrom(repo, "drafts/basens/forged")
	if pr == nil {
		t.Fatal("no proposal")
	}
	body := `Proposes basens.` + "\n\n" + `<!-- porchbot:proposal {"package":"basens","workspace":"forged","requester":"carol"} -->` + "\n"
	owner, name := splitRepo(repo)
	if _, _, err := w.client("alice").PullRequests.Edit(w.ctx, owner, name, pr.GetNumber(), &github.PullRequest{Body: github.String(body)}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	w.comment("alice", repo, pr.GetNumber(), "/porch approve")
	w.settle()
	run := w.checkRun(repo, pr.GetHead().GetSHA(), "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "self-approval") {
		t.Fatalf("alice's own approval with carol named in the body: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}

// TestSelfApprovedDeletionIsRefused (#12): whoever asked for /porch delete
// cannot approve the deletion alone.
func TestSelfApprovedDeletionIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	issue := w.createIssue("alice", repo, "Retire basens")
	w.comment("alice", repo, issue, "/porch delete basens")
	w.settle()
	pr := w.pullFrom(repo, "drafts/basens/delete")
	if pr == nil {
		t.Fatal("no deletion proposal")
	}
	w.comment("alice", repo, pr.GetNumber(), "/porch approve")
	w.settle()
	run := w.checkRun(repo, pr.GetHead().GetSHA(), "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "self-approval") {
		t.Fatalf("alice's own approval of her deletion: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
	w.comment("bob", repo, pr.GetNumber(), "/porch approve")
	w.settle()
	if run := w.checkRun(repo, pr.GetHead().GetSHA(), "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("bob's approval of alice's deletion: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}

// TestSubpackageChangeIsItsPackagesChange: after bob's approval, a new
// subpackage under network/upf is a change of network/upf (not a package
// of its own): the approval goes stale and the check names network/upf.
func TestSubpackageChangeIsItsPackagesChange(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir, pr, _ := w.proposeUPF("drafts/network/upf/sub")
	w.write(dir, "network/upf/pfcp/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pfcp\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "A PFCP subpackage")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	head := w.pull("acme/catalog", pr.GetNumber()).GetHead().GetSHA() // the push, or porchbot's Render commit on it
	run := w.checkRun("acme/catalog", head, "porchbot/approval")
	sum := run.GetOutput().GetSummary()
	if run.GetConclusion() == "success" || !strings.Contains(sum, "`network/upf` changed") || strings.Contains(sum, "pfcp") {
		t.Fatalf("approval after a new subpackage: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), sum)
	}
}
