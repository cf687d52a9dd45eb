package forge

import (
	"encoding/json"
	"testing"

	"github.com/google/go-github/v60/github"
)

func shaped(t *testing.T, v any, where shapeFor) map[string]any {
	t.Helper()
	b, err := marshalGitHub(v, where)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// marshalGitHub adds what GitHub always sends and keeps what was set.
func TestMarshalGitHubAddsAndKeeps(t *testing.T) {
	pr := &github.PullRequest{Number: github.Int(1), Head: &github.PullRequestBranch{Ref: github.String("h")},
		Base: &github.PullRequestBranch{Ref: github.String("b")}, MergedAt: &github.Timestamp{},
		Labels: []*github.Label{{Name: github.String("porch/proposed")}}}
	m := shaped(t, pr, forREST)
	for _, k := range []string{"closed_at", "milestone", "auto_merge", "assignee", "merged_by"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	for _, k := range []string{"assignees", "requested_reviewers", "requested_teams"} {
		if l, ok := m[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", k, m[k])
		}
	}
	if m["merged_at"] == nil {
		t.Error("a set merged_at was replaced")
	}
	if l, _ := m["labels"].([]any); len(l) != 1 {
		t.Errorf("labels = %v, want the one set", m["labels"])
	}
}

// A repository's organization is a simple user in REST, the login in
// push's payload, absent in the other payloads; mirror_url "" is null.
func TestMarshalGitHubRepositoryOrganization(t *testing.T) {
	owner := &github.User{Login: github.String("acme"), FollowersURL: github.String("u")}
	repo := &github.Repository{FullName: github.String("acme/c"), GitURL: github.String("git://x/acme/c.git"), Owner: owner,
		Organization: &github.Organization{Login: github.String("acme")}, MirrorURL: github.String(""), ForksCount: github.Int(2)}
	rest := shaped(t, repo, forREST)
	if org, _ := rest["organization"].(map[string]any); org["followers_url"] != "u" {
		t.Errorf("REST organization = %v, want the owner as a simple user", rest["organization"])
	}
	if rest["mirror_url"] != nil || rest["license"] != nil || rest["forks"] != float64(2) {
		t.Errorf("mirror_url %v license %v forks %v", rest["mirror_url"], rest["license"], rest["forks"])
	}
	hook := shaped(t, repo, forWebhook)
	if _, ok := hook["organization"]; ok {
		t.Errorf("a webhook repository names organization %v", hook["organization"])
	}
	push := shaped(t, map[string]any{"full_name": "acme/c", "git_url": "g", "owner": map[string]any{}, "organization": "acme"}, forWebhook)
	if push["organization"] != "acme" {
		t.Errorf("push's repository organization = %v, want the login", push["organization"])
	}
}
