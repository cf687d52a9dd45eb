package forge_test

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
	ghclient "github.com/porchbot/porchbot/internal/github"
)

// TestRepositoryActivities: every way a branch moves (created by the REST
// API, a contents update, a force push, a merge, a deletion) is listed by
// GET /activity with its type, before and after, actor and time, newest
// first, filtered by ref, paginated by cursors.
func TestRepositoryActivities(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	env.Forge.SetClock(func() time.Time { return at })
	defer env.Forge.SetClock(nil)
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)

	const branch = "drafts/basens/v1"
	if _, _, err := bob.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/" + branch),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	at = at.Add(time.Second)
	put, _, err := bob.Repositories.CreateFile(ctx, "acme", "catalog", "basens/Kptfile", &github.RepositoryContentFileOptions{
		Message: github.String("basens"), Content: []byte("kind: Kptfile\n"), Branch: github.String(branch)})
	if err != nil {
		t.Fatal(err)
	}
	pushed := put.Commit.GetSHA()
	at = at.Add(time.Second)
	if _, _, err := alice.Git.UpdateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/" + branch),
		Object: &github.GitObject{SHA: github.String(base)}}, true); err != nil {
		t.Fatal(err)
	}
	at = at.Add(time.Second)
	put, _, err = bob.Repositories.CreateFile(ctx, "acme", "catalog", "basens/Kptfile", &github.RepositoryContentFileOptions{
		Message: github.String("basens again"), Content: []byte("kind: Kptfile\n"), Branch: github.String(branch)})
	if err != nil {
		t.Fatal(err)
	}
	again := put.Commit.GetSHA()
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("basens"),
		Head: github.String(branch), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	at = at.Add(time.Second)
	merged, _, err := alice.PullRequests.Merge(ctx, "acme", "catalog", pr.GetNumber(), "", nil)
	if err != nil {
		t.Fatal(err)
	}

	type row struct{ kind, before, after, actor string }
	list := func(opts ghclient.ActivityListOptions) ([]row, []time.Time, *github.Response) {
		t.Helper()
		acts, resp, err := ghclient.ListActivities(ctx, env.Client(forgetest.CarolToken), "acme", "catalog", opts)
		if err != nil {
			t.Fatal(err)
		}
		var rows []row
		var times []time.Time
		for _, a := range acts {
			rows = append(rows, row{a.ActivityType, a.Before, a.After, a.Actor.GetLogin()})
			times = append(times, a.Timestamp.Time)
		}
		return rows, times, resp
	}
	rows, times, _ := list(ghclient.ActivityListOptions{Ref: branch})
	zero := "0000000000000000000000000000000000000000"
	want := []row{{"push", base, again, "bob"}, {"force_push", pushed, base, "alice"}, {"push", base, pushed, "bob"},
		{"branch_creation", zero, base, "bob"}}
	if len(rows) != len(want) {
		t.Fatalf("activities of %s: %+v, want %+v", branch, rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("activity %d of %s: %+v, want %+v", i, branch, rows[i], want[i])
		}
	}
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if !times[3].Equal(start) || !times[2].Equal(start.Add(time.Second)) || !times[0].Equal(start.Add(3*time.Second)) {
		t.Errorf("timestamps %v", times)
	}
	mains, _, _ := list(ghclient.ActivityListOptions{Ref: "refs/heads/main"})
	if len(mains) != 1 || mains[0] != (row{"pr_merge", base, merged.GetSHA(), "alice"}) {
		t.Errorf("activities of main: %+v", mains)
	}

	// Cursors: two at a time, oldest first, until the last page.
	var seen []row
	opts := ghclient.ActivityListOptions{Ref: branch, Direction: "asc", PerPage: 2}
	for range 5 {
		page, _, resp := list(opts)
		seen = append(seen, page...)
		if resp.After == "" {
			break
		}
		opts.After = resp.After
	}
	if len(seen) != 4 || seen[0] != want[3] || seen[3] != want[0] {
		t.Errorf("paged ascending: %+v", seen)
	}

	// A value outside the enumerations, or a cursor the forge did not give, is 422.
	for _, q := range []string{"activity_type=rebase", "time_period=decade", "after=" + base64.RawURLEncoding.EncodeToString([]byte("x"))} {
		req, _ := alice.NewRequest("GET", "repos/acme/catalog/activity?"+q, nil)
		if resp, err := alice.Do(ctx, req, nil); err == nil || resp.StatusCode != 422 {
			t.Errorf("%s: %v", q, err)
		}
	}
	// Branch deletions are activities too.
	if _, err := alice.Git.DeleteRef(ctx, "acme", "catalog", "heads/"+branch); err != nil {
		t.Fatal(err)
	}
	if rows, _, _ := list(ghclient.ActivityListOptions{Ref: branch}); len(rows) != 5 || rows[0].kind != "branch_deletion" || rows[0].after != zero {
		t.Errorf("after the deletion: %+v", rows)
	}
}
