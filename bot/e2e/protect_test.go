package e2e

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/protect"
)

// TestProtectedDeploymentBranchWaitsForPorchbotsChecks: with main
// protected by `porchbot protect` (the checks bound to porchbot's App,
// administrators bound too), the forge refuses alice's merge of a
// proposal nobody approved, in GitHub's words, instead of porchbot
// refusing to publish after it; once bob approves, the merge goes through
// and porchbot publishes it. A second run changes nothing.
func TestProtectedDeploymentBranchWaitsForPorchbotsChecks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	alice, bob := w.client("alice"), w.client("bob")
	opts := protect.Options{AppID: w.svc.Embedded.AppID, EnforceAdmins: true}
	if _, err := protect.Protect(w.ctx, bob.Repositories, "acme", "catalog", "main", opts); err == nil {
		t.Fatal("bob, who may only write, protected main")
	}
	out, err := protect.Protect(w.ctx, alice.Repositories, "acme", "catalog", "main", opts)
	if err != nil || !out.Created || strings.Join(out.Required, ",") != "porchbot/approval,porchbot/render" {
		t.Fatalf("protect: %+v, %v", out, err)
	}
	if again, err := protect.Protect(w.ctx, alice.Repositories, "acme", "catalog", "main", opts); err != nil || again.Created || len(again.Added) != 0 {
		t.Fatalf("protect again: %+v, %v", again, err)
	}

	dir := w.clone("alice", "acme/catalog")
	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/scale")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 2", 1))
	w.git(dir, "commit", "-q", "-am", "Scale the UPF to two replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr, _, err := alice.PullRequests.Create(w.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("Scale the UPF"), Head: github.String("drafts/network/upf/scale"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	w.settle()

	_, resp, err := alice.PullRequests.Merge(w.ctx, "acme", "catalog", pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "merge"})
	var er *github.ErrorResponse
	if err == nil || resp.StatusCode != http.StatusMethodNotAllowed || !errors.As(err, &er) ||
		er.Message != `Required status check "porchbot/approval" is failing.` {
		t.Fatalf("merge before an approval: %v", err)
	}

	if _, _, err := bob.PullRequests.CreateReview(w.ctx, "acme", "catalog", pr.GetNumber(),
		&github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	w.publishFound("acme/catalog", w.git(dir, "rev-parse", "origin/main"), "network/upf")
	res, _, err := alice.PullRequests.Merge(w.ctx, "acme", "catalog", pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		t.Fatalf("merge after bob's approval: %v", err)
	}
	w.settle()
	if tags := w.tags("acme/catalog", "network/upf/"); tags["network/upf/v2"] != res.GetSHA() {
		t.Fatalf("the merge was not published: %v", tags)
	}
}
