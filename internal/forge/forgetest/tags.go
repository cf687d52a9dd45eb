package forgetest

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Tags lists the tags of owner/repo under prefix (e.g. "network/upf/")
// with the commits they name: annotated tags (porchbot's revisions) are
// peeled through the git tags API.
func Tags(ctx context.Context, gh *github.Client, owner, repo, prefix string) (map[string]string, error) {
	refs, _, err := gh.Git.ListMatchingRefs(ctx, owner, repo,
		&github.ReferenceListOptions{Ref: "tags/" + prefix, ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return nil, fmt.Errorf("tags of %s/%s: %w", owner, repo, err)
	}
	out := map[string]string{}
	for _, r := range refs {
		sha := r.GetObject().GetSHA()
		if r.GetObject().GetType() == "tag" {
			tag, _, err := gh.Git.GetTag(ctx, owner, repo, sha)
			if err != nil {
				return nil, fmt.Errorf("tag %s of %s/%s: %w", r.GetRef(), owner, repo, err)
			}
			sha = tag.GetObject().GetSHA()
		}
		out[strings.TrimPrefix(r.GetRef(), "refs/tags/")] = sha
	}
	return out, nil
}
