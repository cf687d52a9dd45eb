package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/index"
)

// TestLifecycleDraftProposeApproveMergePublish is the golden path: alice
// pushes a draft, porchbot renders it and reports the check, alice opens
// the proposal, bob (of @acme/platform) approves, alice merges, and
// porchbot publishes the landing with its release.
func TestLifecycleDraftProposeApproveMergePublish(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	alice, bob := w.client("alice"), w.client("bob")

	// 1. A draft: scale the UPF and forget the namespace; the pipeline
	// (set-labels, set-namespace) puts it back in a Render commit.
	dir := w.clone("alice", "acme/catalog")
	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/scale")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(strings.Replace(
		readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 3", 1), "  namespace: upf\n", "", 1))
	w.git(dir, "commit", "-q", "-am", "Scale the UPF to three replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	pushed := w.git(dir, "rev-parse", "HEAD")
	w.settle()

	branch, _, err := alice.Repositories.GetBranch(w.ctx, "acme", "catalog", "drafts/network/upf/scale", 0)
	if err != nil {
		t.Fatal(err)
	}
	head := branch.GetCommit().GetSHA()
	if head == pushed {
		t.Fatal("porchbot did not push a Render commit")
	}
	commit, _, err := alice.Git.GetCommit(w.ctx, "acme", "catalog", head)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(commit.GetMessage(), "Render network/upf") || !strings.Contains(commit.GetMessage(), "\nkpt:{") ||
		commit.Parents[0].GetSHA() != pushed {
		t.Fatalf("unexpected render commit %q on %v", commit.GetMessage(), commit.Parents)
	}
	file, _, _, err := alice.Repositories.GetContents(w.ctx, "acme", "catalog", "network/upf/deployment.yaml",
		&github.RepositoryContentGetOptions{Ref: head})
	if err != nil {
		t.Fatal(err)
	}
	if content, _ := file.GetContent(); !strings.Contains(content, "namespace: upf") || !strings.Contains(content, "replicas: 3") {
		t.Fatalf("rendered deployment:\n%s", content)
	}
	if run := w.checkRun("acme/catalog", head, "porchbot/render"); run.GetConclusion() != "success" ||
		!strings.Contains(run.GetOutput().GetText(), "set-namespace") {
		t.Fatalf("render check: %s %q", run.GetConclusion(), run.GetOutput().GetText())
	}

	// 2. The proposal.
	pr, _, err := alice.PullRequests.Create(w.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("Scale the UPF"), Head: github.String("drafts/network/upf/scale"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	labels, _, err := alice.Issues.ListLabelsByIssue(w.ctx, "acme", "catalog", pr.GetNumber(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) == 0 || labels[0].GetName() != "porch/proposed" {
		t.Fatalf("proposal not labelled: %v", labels)
	}
	if run := w.checkRun("acme/catalog", head, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatal("approval check passed without an approval")
	}

	// 3. bob approves.
	if _, _, err := bob.PullRequests.CreateReview(w.ctx, "acme", "catalog", pr.GetNumber(),
		&github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if run := w.checkRun("acme/catalog", head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval check after bob's approval: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	// 4. alice merges; porchbot publishes the landing. The state porchbot
	// found network/upf in on main (the seed commit) was published by an
	// approver's /porch publish as v1 (nobody reviewed it otherwise), the
	// merge becomes v2 — revisions without gaps, in history order.
	seed := w.git(dir, "rev-parse", "origin/main")
	w.publishFound("acme/catalog", seed, "network/upf")
	res, _, err := alice.PullRequests.Merge(w.ctx, "acme", "catalog", pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	tags := w.tags("acme/catalog", "network/upf/")
	for tag, want := range map[string]string{"network/upf/v1": seed, "network/upf/v2": res.GetSHA()} {
		if tags[tag] != want {
			t.Fatalf("%s at %q, want %s", tag, tags[tag], want)
		}
	}
	rel, _, err := alice.Repositories.GetReleaseByTag(w.ctx, "acme", "catalog", "network/upf/v2")
	if err != nil {
		t.Fatalf("no release: %v", err)
	}
	if !strings.Contains(rel.GetBody(), "bob") {
		t.Fatalf("release notes do not name the approver:\n%s", rel.GetBody())
	}
	if _, _, err := alice.Git.GetRef(w.ctx, "acme", "catalog", "tags/network/upf/v3"); err == nil {
		t.Fatal("a third tag for two landings")
	}

	// 5. The package index on porch/index lists both revisions, v2 with
	// its approver, and `porchbot index verify` would find it true.
	idx, err := index.Decode(w.indexOnBranch("acme/catalog"))
	if err != nil {
		t.Fatal(err)
	}
	upf := indexPackage(idx, "network/upf")
	if upf == nil || len(upf.Revisions) != 2 || upf.Revisions[0].Commit != res.GetSHA() || upf.Revisions[1].Commit != seed ||
		!slices.Contains(upf.Revisions[0].Approvers, "bob") {
		t.Fatalf("index of network/upf: %+v", upf)
	}
}
