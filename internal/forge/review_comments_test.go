package forge_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestPullReviewComments(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := chkSeedCommit(t, env, "main", map[string]string{"cm.yaml": "a\nb\nc\n", "README.md": "hi\n"})
	bob, carol := env.Client(forgetest.BobToken), env.Client(forgetest.CarolToken)
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"), Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	head := chkSeedCommit(t, env, "feature", map[string]string{"cm.yaml": "a\nB\nc\n", "README.md": "hi\n"})
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Change b"),
		Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	comment := func(c *github.Client, line int, path string) (*github.PullRequestComment, *github.Response, error) {
		return c.PullRequests.CreateComment(ctx, "acme", "catalog", n, &github.PullRequestComment{Body: github.String("why?"),
			CommitID: github.String(head), Path: github.String(path), Line: github.Int(line), Side: github.String("RIGHT")})
	}
	c1, _, err := comment(carol, 2, "cm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c1.GetPosition() != 3 || !strings.HasSuffix(c1.GetDiffHunk(), "+B") || c1.GetUser().GetLogin() != "carol" || c1.GetPullRequestReviewID() == 0 {
		t.Fatalf("comment: position %d hunk %q user %s review %d", c1.GetPosition(), c1.GetDiffHunk(), c1.GetUser().GetLogin(), c1.GetPullRequestReviewID())
	}
	_, resp, err := comment(carol, 10, "cm.yaml")
	chkWantStatus(t, "line outside the diff", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = comment(carol, 1, "README.md")
	chkWantStatus(t, "file outside the diff", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = comment(env.Client(forgetest.MalloryToken), 2, "cm.yaml")
	chkWantStatus(t, "stranger", resp, err, http.StatusNotFound)

	reply, _, err := bob.PullRequests.CreateCommentInReplyTo(ctx, "acme", "catalog", n, "because", c1.GetID())
	if err != nil {
		t.Fatal(err)
	}
	if reply.GetInReplyTo() != c1.GetID() || reply.GetPath() != "cm.yaml" || reply.GetLine() != 2 {
		t.Fatalf("reply: %+v", reply)
	}
	list, resp, err := bob.PullRequests.ListComments(ctx, "acme", "catalog", n, &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || len(list) != 1 || list[0].GetID() != c1.GetID() || resp.NextPage != 2 {
		t.Fatalf("list: %v next %d %v", list, resp.NextPage, err)
	}
	all, _, err := bob.PullRequests.ListComments(ctx, "acme", "catalog", 0, nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("repository comments: %v %v", all, err)
	}
	got, _, err := bob.PullRequests.GetComment(ctx, "acme", "catalog", reply.GetID())
	if err != nil || got.GetBody() != "because" {
		t.Fatalf("get: %v %v", got, err)
	}
	reviews, _, err := bob.PullRequests.ListReviews(ctx, "acme", "catalog", n, nil)
	if err != nil || len(reviews) != 2 || reviews[0].GetState() != "COMMENTED" {
		t.Fatalf("each comment is a review of its own: %v %v", reviews, err)
	}
}
