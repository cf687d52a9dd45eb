package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestTagsReadmeRateLimit(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c1 := chkSeedCommit(t, env, "main", map[string]string{"README.md": "root readme\n", "docs/readme.rst": "docs readme\n"})
	c2 := chkSeedCommit(t, env, "main", map[string]string{"README.md": "root readme 2\n", "docs/readme.rst": "docs readme\n"})
	bob := env.Client(forgetest.BobToken)

	for _, tg := range []struct{ name, sha string }{{"pkg/v1", c1}, {"pkg/v10", c2}} {
		if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/tags/" + tg.name), Object: &github.GitObject{SHA: github.String(tg.sha)}}); err != nil {
			t.Fatal(err)
		}
	}
	annotated, _, err := bob.Git.CreateTag(ctx, "acme", "catalog", &github.Tag{Tag: github.String("pkg/v2"), Message: github.String("v2\n"),
		Object: &github.GitObject{SHA: github.String(c2), Type: github.String("commit")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/tags/pkg/v2"), Object: &github.GitObject{SHA: annotated.SHA}}); err != nil {
		t.Fatal(err)
	}
	tags, resp, err := bob.Repositories.ListTags(ctx, "acme", "catalog", &github.ListOptions{PerPage: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 2 || tags[0].GetName() != "pkg/v10" || tags[1].GetName() != "pkg/v2" || tags[1].GetCommit().GetSHA() != c2 || resp.NextPage != 2 {
		t.Fatalf("tags page 1: %v next %d", tags, resp.NextPage)
	}
	tags, _, err = bob.Repositories.ListTags(ctx, "acme", "catalog", &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(tags) != 1 || tags[0].GetName() != "pkg/v1" || tags[0].GetCommit().GetSHA() != c1 {
		t.Fatalf("tags page 2: %v %v", tags, err)
	}

	readme := func(dir, ref string) (string, *github.Response, error) {
		t.Helper()
		var rc *github.RepositoryContent
		var resp *github.Response
		var err error
		opts := &github.RepositoryContentGetOptions{Ref: ref}
		if dir == "" {
			rc, resp, err = bob.Repositories.GetReadme(ctx, "acme", "catalog", opts)
		} else {
			req, _ := bob.NewRequest(http.MethodGet, "repos/acme/catalog/readme/"+dir, nil)
			rc = new(github.RepositoryContent)
			resp, err = bob.Do(ctx, req, rc)
		}
		if err != nil {
			return "", resp, err
		}
		text, err := rc.GetContent()
		return rc.GetPath() + ": " + text, resp, err
	}
	if got, _, err := readme("", ""); err != nil || got != "README.md: root readme 2\n" {
		t.Fatalf("readme: %q %v", got, err)
	}
	if got, _, err := readme("", c1); err != nil || got != "README.md: root readme\n" {
		t.Fatalf("readme at c1: %q %v", got, err)
	}
	if got, _, err := readme("docs", ""); err != nil || got != "docs/readme.rst: docs readme\n" {
		t.Fatalf("docs readme: %q %v", got, err)
	}
	_, resp, err = readme("nowhere", "")
	chkWantStatus(t, "no readme", resp, err, http.StatusNotFound)

	rl, resp, err := bob.RateLimit.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	used := rl.GetCore().Limit - rl.GetCore().Remaining
	if rl.GetCore().Limit != 5000 || used == 0 || rl.GetSearch().Limit != 30 || rl.GetCore().Reset.IsZero() {
		t.Fatalf("rate limit: core %+v search %+v", rl.GetCore(), rl.GetSearch())
	}
	again, _, err := bob.RateLimit.Get(ctx)
	if err != nil || again.GetCore().Remaining != rl.GetCore().Remaining {
		t.Fatalf("GET /rate_limit spent a call: %d then %d (%v)", rl.GetCore().Remaining, again.GetCore().Remaining, err)
	}
	if _, _, err := bob.Repositories.ListTags(ctx, "acme", "catalog", nil); err != nil {
		t.Fatal(err)
	}
	after, _, err := bob.RateLimit.Get(ctx)
	if err != nil || after.GetCore().Remaining != rl.GetCore().Remaining-1 {
		t.Fatalf("a REST call is not counted: %d then %d (%v)", rl.GetCore().Remaining, after.GetCore().Remaining, err)
	}
}
