package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// The approval verdict requires porchbot/render to have passed on the head
// (issue #8): a failed render blocks an approved proposal, and a render
// that finishes after the approval was judged brings the check up to date.

// wantApprovalBlockedByRender: the latest porchbot/approval on head is not
// a success and says the render failed.
func (w *world) wantApprovalBlockedByRender(repo, head string) {
	w.t.Helper()
	run := w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "the render check failed on the head") {
		w.t.Fatalf("approval with a failed render: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}

// TestFailedRenderBlocksApproval: a feature-branch proposal whose committed
// files are not what its pipeline renders (the UPF's namespace dropped)
// fails porchbot/render; bob's approval does not make it approved, and
// its merge is not published.
func TestFailedRenderBlocksApproval(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, head := w.branchProposal(repo, "feature/nons", "network/upf/deployment.yaml", "  namespace: upf\n", "", "Drop the UPF's namespace")
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/render"); run.GetConclusion() != "failure" {
		t.Fatalf("render of the namespace-less head: %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	w.wantApprovalBlockedByRender(repo, head)
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	if tags := w.tagsOn(repo, merged); len(tags) != 0 {
		t.Fatalf("a proposal whose render failed was published: %v", tags)
	}
}

// TestApprovalFollowsALateRender: a draft's push webhook is lost, so its
// proposal is judged (and approved by bob) before any render; when the
// resync renders the draft and the render fails (a resource that does
// not parse), the approval check on the head is judged again and no
// longer says approved.
func TestApprovalFollowsALateRender(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	head := w.approvedBeforeRender(repo)
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/render"); run.GetConclusion() != "failure" {
		t.Fatalf("render by the resync: %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	w.wantApprovalBlockedByRender(repo, head)
}

// approvedBeforeRender pushes drafts/basens/old (a resource that does not
// parse) with its push webhook lost, opens its pull request and has bob
// approve it: its approval is judged before any render. It returns the
// head.
func (w *world) approvedBeforeRender(repo string) string {
	w.t.Helper()
	t := w.t
	fg := w.svc.Embedded.Forge
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", "drafts/basens/old")
	w.write(dir, "basens/broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "A broken resource")
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	fg.SetFaults(forge.Faults{})
	head := w.git(dir, "rev-parse", "HEAD")
	pr := w.openPull("alice", repo, "drafts/basens/old", "Broken")
	w.settle()
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	if run := w.checkRunMaybe(repo, head, "porchbot/render"); run != nil {
		t.Fatalf("rendered with the push webhook lost: %s", run.GetConclusion())
	}
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval before any render: %s %q", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	return head
}

// TestApprovalFollowsAnotherReplicasRender: the render of a head whose
// approval this replica judged first is reported by another replica (here:
// a check run written with the App's installation token, as a replica
// writes it); the check_run event makes this replica judge the approval
// again.
func TestApprovalFollowsAnotherReplicasRender(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	head := w.approvedBeforeRender(repo)
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	asBot, err := w.svc.Clients.Installation(w.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	owner, name := splitRepo(repo)
	if _, _, err := asBot.Checks.CreateCheckRun(w.ctx, owner, name, github.CreateCheckRunOptions{Name: "porchbot/render",
		HeadSHA: head, Status: github.String("completed"), Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("Render failed"), Summary: github.String("broken.yaml does not parse")}}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	w.wantApprovalBlockedByRender(repo, head)
}
