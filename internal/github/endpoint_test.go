package github

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"", "/"},
		{"/", "/"},
		{"/api/v3", "/"},
		{"/api/v3/", "/"},
		{"/app", "/app"},
		{"/api/v3/app/installations/1234/access_tokens", "/app/installations/{number}/access_tokens"},
		{"/app/installations", "/app/installations"},
		{"/installation/repositories", "/installation/repositories"},
		{"/api/v3/repos/acme/widgets", "/repos/{owner}/{repo}"},
		{"/repos/acme/widgets/pulls/12/reviews", "/repos/{owner}/{repo}/pulls/{number}/reviews"},
		{"/api/v3/repos/acme/widgets/pulls/12/reviews", "/repos/{owner}/{repo}/pulls/{number}/reviews"},
		{"/repos/acme/widgets/pulls/12/requested_reviewers", "/repos/{owner}/{repo}/pulls/{number}/requested_reviewers"},
		{"/repos/acme/widgets/issues/5/comments", "/repos/{owner}/{repo}/issues/{number}/comments"},
		{"/repos/acme/widgets/issues/comments/987654321", "/repos/{owner}/{repo}/issues/comments/{number}"},
		{"/repos/acme/widgets/issues/5/labels/bug", "/repos/{owner}/{repo}/issues/{number}/labels/{name}"},
		{"/repos/acme/widgets/labels/good%20first%20issue", "/repos/{owner}/{repo}/labels/{name}"},
		{"/repos/acme/widgets/git/refs/heads/main", "/repos/{owner}/{repo}/git/refs/{ref}"},
		{"/repos/acme/widgets/git/refs/heads/porchbot/update-lodash", "/repos/{owner}/{repo}/git/refs/{ref}"},
		{"/repos/acme/widgets/git/ref/heads/main", "/repos/{owner}/{repo}/git/ref/{ref}"},
		{"/repos/acme/widgets/git/matching-refs/heads/porchbot/", "/repos/{owner}/{repo}/git/matching-refs/{ref}"},
		{"/repos/acme/widgets/git/refs", "/repos/{owner}/{repo}/git/refs"},
		{"/repos/acme/widgets/git/commits/0123456789abcdef0123456789abcdef01234567", "/repos/{owner}/{repo}/git/commits/{sha}"},
		{"/repos/acme/widgets/git/trees/0123456789abcdef0123456789abcdef01234567", "/repos/{owner}/{repo}/git/trees/{sha}"},
		{"/repos/acme/widgets/git/trees/main", "/repos/{owner}/{repo}/git/trees/{ref}"},
		{"/repos/acme/widgets/git/blobs/0123456789abcdef0123456789abcdef01234567", "/repos/{owner}/{repo}/git/blobs/{sha}"},
		{"/repos/acme/widgets/commits/0123456789abcdef0123456789abcdef01234567/status", "/repos/{owner}/{repo}/commits/{sha}/status"},
		{"/repos/acme/widgets/commits/main/check-runs", "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{"/repos/acme/widgets/commits/drafts/network/upf/w1/check-runs", "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{"/repos/acme/widgets/commits/drafts/basens/w1/status", "/repos/{owner}/{repo}/commits/{ref}/status"},
		{"/repos/acme/widgets/commits/drafts/basens/w1", "/repos/{owner}/{repo}/commits/{ref}"},
		{"/repos/acme/widgets/releases/tags/network/upf/v12", "/repos/{owner}/{repo}/releases/tags/{tag}"},
		{"/repos/acme/widgets/releases/tags/v1", "/repos/{owner}/{repo}/releases/tags/{tag}"},
		{"/repos/acme/widgets/statuses/0123456789abcdef0123456789abcdef01234567", "/repos/{owner}/{repo}/statuses/{sha}"},
		{"/repos/acme/widgets/contents/go.mod", "/repos/{owner}/{repo}/contents/{path}"},
		{"/repos/acme/widgets/contents/services/api/go.mod", "/repos/{owner}/{repo}/contents/{path}"},
		{"/repos/acme/widgets/compare/main...porchbot/x", "/repos/{owner}/{repo}/compare/{basehead}"},
		{"/repos/acme/widgets/branches/main", "/repos/{owner}/{repo}/branches/{branch}"},
		{"/repos/acme/widgets/branches/release%2F1.x/protection", "/repos/{owner}/{repo}/branches/{branch}/protection"},
		{"/repos/acme/widgets/collaborators/octocat/permission", "/repos/{owner}/{repo}/collaborators/{user}/permission"},
		{"/repos/acme/widgets/releases/tags/v1.2.3", "/repos/{owner}/{repo}/releases/tags/{tag}"},
		{"/repos/acme/widgets/check-runs/42", "/repos/{owner}/{repo}/check-runs/{number}"},
		{"/repos/acme/widgets/installation", "/repos/{owner}/{repo}/installation"},
		// A repository named like a path word stays {repo}.
		{"/repos/acme/labels/labels/bug", "/repos/{owner}/{repo}/labels/{name}"},
		{"/repos/refs/contents/pulls/1", "/repos/{owner}/{repo}/pulls/{number}"},
		{"/users/octocat/installation", "/users/{user}/installation"},
		{"/orgs/acme/installation", "/orgs/{org}/installation"},
		{"/orgs/acme/teams/core-team/members", "/orgs/{org}/teams/{team}/members"},
		{"/repositories/123456/pulls", "/repositories/{number}/pulls"},
		{"/search/issues", "/search/issues"},
		{"/search/issues?q=repo:acme/widgets", "/search/issues"},
		{"/rate_limit", "/rate_limit"},
		{"/api/uploads/repos/acme/widgets/releases/7/assets", "/repos/{owner}/{repo}/releases/{number}/assets"},
		{"/acme/widgets.git/info/refs", "/{owner}/{repo}.git/info/refs"},
		{"/acme/widgets.git/git-upload-pack", "/{owner}/{repo}.git/git-upload-pack"},
		// Unknown data-like segments are bounded.
		{"/something/Weird.Name/else", "/something/{param}/else"},
	} {
		if got := Endpoint(tc.path); got != tc.want {
			t.Errorf("Endpoint(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestEndpointLabelsAreBounded: the metric label of a call does not grow
// with the names in it. Hundreds of drafts, packages and tags (slashes
// and all, sent unescaped as go-github sends refs and tags) give one
// label per endpoint.
func TestEndpointLabelsAreBounded(t *testing.T) {
	patterns := []string{
		"/repos/acme/%s/commits/%s/check-runs",
		"/repos/acme/%s/commits/%s/status",
		"/repos/acme/%s/commits/%s",
		"/repos/acme/%s/git/refs/heads/%s",
		"/repos/acme/%s/git/ref/heads/%s",
		"/repos/acme/%s/releases/tags/%s",
		"/repos/acme/%s/contents/%s/Kptfile",
		"/repos/acme/%s/compare/main...%s",
	}
	labels := map[string]bool{}
	for i := 0; i < 50; i++ {
		for _, name := range []string{
			fmt.Sprintf("drafts/network/upf-%d/w%d", i, i),
			fmt.Sprintf("porch/update/sites/site-%d", i),
			fmt.Sprintf("network/upf-%d/v%d", i, i+1),
			fmt.Sprintf("basens-%d", i),
		} {
			for _, p := range patterns {
				labels[Endpoint(fmt.Sprintf(p, fmt.Sprintf("repo-%d", i), name))] = true
			}
		}
	}
	if len(labels) != len(patterns) {
		var got []string
		for l := range labels {
			got = append(got, l)
		}
		sort.Strings(got)
		t.Fatalf("%d labels for %d endpoints:\n%s", len(labels), len(patterns), strings.Join(got, "\n"))
	}
}
