package forge_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestIssueEventsAndTimeline(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)
	if _, _, err := alice.Issues.CreateLabel(ctx, "acme", "catalog", &github.Label{Name: github.String("bug"), Color: github.String("d73a4a")}); err != nil {
		t.Fatal(err)
	}
	is, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Broken")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	steps := []func() error{
		func() error {
			_, _, err := alice.Issues.AddLabelsToIssue(ctx, "acme", "catalog", n, []string{"bug"})
			return err
		},
		func() error {
			_, _, err := alice.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{Assignees: &[]string{"bob"}})
			return err
		},
		func() error {
			_, _, err := alice.Issues.CreateComment(ctx, "acme", "catalog", n, &github.IssueComment{Body: github.String("looking")})
			return err
		},
		func() error {
			_, _, err := alice.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{Title: github.String("Broken render")})
			return err
		},
		func() error {
			_, _, err := bob.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{State: github.String("closed")})
			return err
		},
		func() error {
			_, _, err := alice.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{State: github.String("open")})
			return err
		},
		func() error { _, err := alice.Issues.RemoveLabelForIssue(ctx, "acme", "catalog", n, "bug"); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	evs, _, err := bob.Issues.ListIssueEvents(ctx, "acme", "catalog", n, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ev := range evs {
		names = append(names, ev.GetEvent())
	}
	want := []string{"labeled", "assigned", "renamed", "closed", "reopened", "unlabeled"}
	if len(names) != len(want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("events %v, want %v", names, want)
		}
	}
	if evs[0].GetLabel().GetName() != "bug" || evs[1].GetAssignee().GetLogin() != "bob" || evs[2].GetRename().GetFrom() != "Broken" ||
		evs[2].GetRename().GetTo() != "Broken render" || evs[3].GetActor().GetLogin() != "bob" {
		t.Fatalf("event details: %+v", evs)
	}
	tl, _, err := bob.Issues.ListIssueTimeline(ctx, "acme", "catalog", n, nil)
	if err != nil || len(tl) != 7 || tl[2].GetEvent() != "commented" || tl[2].GetBody() != "looking" {
		t.Fatalf("timeline: %d items %v", len(tl), err)
	}

	// A merge records merged then closed, with the merge commit.
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"), Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	chkSeedCommit(t, env, "feature", map[string]string{"README.md": "hello\n"})
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("Hello"),
		Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.PullRequests.RequestReviewers(ctx, "acme", "catalog", pr.GetNumber(), github.ReviewersRequest{Reviewers: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.PullRequests.CreateReview(ctx, "acme", "catalog", pr.GetNumber(), &github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		t.Fatal(err)
	}
	res, _, err := alice.PullRequests.Merge(ctx, "acme", "catalog", pr.GetNumber(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := bob.Issues.ListRepositoryEvents(ctx, "acme", "catalog", nil)
	if err != nil || len(all) < 3 {
		t.Fatalf("repository events: %v %v", all, err)
	}
	if all[0].GetEvent() != "closed" || all[1].GetEvent() != "merged" || all[1].GetCommitID() != res.GetSHA() ||
		all[2].GetEvent() != "review_requested" || all[0].GetIssue().GetNumber() != pr.GetNumber() {
		t.Fatalf("newest repository events: %s %s %s", all[0].GetEvent(), all[1].GetEvent(), all[2].GetEvent())
	}
	one, _, err := bob.Issues.GetEvent(ctx, "acme", "catalog", all[1].GetID())
	if err != nil || one.GetEvent() != "merged" {
		t.Fatalf("get event: %v %v", one, err)
	}
	tl, _, err = bob.Issues.ListIssueTimeline(ctx, "acme", "catalog", pr.GetNumber(), nil)
	if err != nil || len(tl) != 4 || tl[1].GetEvent() != "reviewed" || tl[1].GetState() != "approved" && tl[1].GetState() != "APPROVED" {
		t.Fatalf("pull timeline: %d items %v", len(tl), err)
	}
	_, resp, err := env.Client(forgetest.MalloryToken).Issues.ListIssueEvents(ctx, "acme", "catalog", n, nil)
	chkWantStatus(t, "stranger", resp, err, http.StatusNotFound)
}
