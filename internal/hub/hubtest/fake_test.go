package hubtest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/hub"
)

var ctx = context.Background()

func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	var he *hub.Error
	if !errors.As(err, &he) || he.Status != status {
		t.Fatalf("%s: want a *hub.Error %d, got %#v", what, status, err)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func numbers(ps []hub.Pull) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Number)
	}
	return out
}

func TestFakeListPullsFilters(t *testing.T) {
	f := &Fake{Pulls: []hub.Pull{
		{Number: 1, State: "open", Head: hub.Branch{Ref: "feature", Label: "acme:feature"}, Base: hub.Branch{Ref: "main"}},
		{Number: 2, State: "closed", Head: hub.Branch{Ref: "feature", Label: "acme:feature"}, Base: hub.Branch{Ref: "main"}},
		{Number: 3, State: "open", Head: hub.Branch{Ref: "feature", RepoOwner: "fork"}, Base: hub.Branch{Ref: "release"}},
		{Number: 4, State: "open", Head: hub.Branch{Ref: "other", Label: "acme:other"}, Base: hub.Branch{Ref: "main"}},
	}}
	for _, c := range []struct {
		q    hub.PullQuery
		want []int
	}{
		{hub.PullQuery{}, []int{1, 3, 4}},
		{hub.PullQuery{State: "closed"}, []int{2}},
		{hub.PullQuery{State: "all"}, []int{1, 2, 3, 4}},
		{hub.PullQuery{State: "all", Head: "acme:feature"}, []int{1, 2}},
		{hub.PullQuery{Head: "fork:feature"}, []int{3}},
		{hub.PullQuery{Head: "ACME:Feature"}, []int{1}},
		{hub.PullQuery{Base: "main"}, []int{1, 4}},
		{hub.PullQuery{Base: "release", Head: "acme:feature"}, nil},
	} {
		ps, next, err := f.ListPulls(ctx, "acme", "catalog", c.q)
		must(t, "list", err)
		if got := numbers(ps); !slices.Equal(got, c.want) || next != (hub.Next{}) {
			t.Errorf("%+v: got %v %+v, want %v", c.q, got, next, c.want)
		}
	}
	if n := f.Count("ListPulls"); n != 8 || len(f.Calls) != 8 {
		t.Fatalf("counted %d, calls %v", n, f.Calls)
	}
}

func TestFakePullLifecycle(t *testing.T) {
	f := &Fake{Refs: map[string]string{"refs/heads/main": "m0", "refs/heads/feature": "h1"},
		Issues: []hub.Issue{{Number: 4, State: "open", Title: "dashboard"}}}
	_, err := f.GetPull(ctx, "acme", "catalog", 1)
	wantStatus(t, "absent pull", err, http.StatusNotFound)
	if !hub.IsNotFound(err) {
		t.Fatal("IsNotFound")
	}

	p, err := f.CreatePull(ctx, "acme", "catalog", hub.NewPull{Title: "t", Head: "feature", Base: "main"})
	must(t, "create", err)
	if p.Number != 5 || p.State != "open" || p.Head.SHA != "h1" || p.Head.Label != "acme:feature" ||
		p.Head.RepoFullName != "acme/catalog" || p.Base.SHA != "m0" || p.User.Login != "porchbot[bot]" ||
		p.Comments == nil || *p.Comments != 0 {
		t.Fatalf("created %+v", p)
	}
	_, err = f.CreatePull(ctx, "acme", "catalog", hub.NewPull{Title: "again", Head: "acme:feature", Base: "main"})
	wantStatus(t, "a second open pull of the same head", err, http.StatusUnprocessableEntity)
	_, err = f.CreatePull(ctx, "acme", "catalog", hub.NewPull{Head: "feature", Base: "main"})
	wantStatus(t, "no title", err, http.StatusUnprocessableEntity)

	e, err := f.EditPull(ctx, "acme", "catalog", p.Number, hub.PullEdit{Title: "t2"})
	must(t, "edit", err)
	if e.Title != "t2" || e.State != "open" || e.Base.Ref != "main" {
		t.Fatalf("edited %+v", e)
	}
	_, err = f.EditPull(ctx, "acme", "catalog", p.Number, hub.PullEdit{State: "merged"})
	wantStatus(t, "bad state", err, http.StatusUnprocessableEntity)

	_, err = f.MergePull(ctx, "acme", "catalog", p.Number, hub.Merge{SHA: "stale"})
	wantStatus(t, "stale head", err, http.StatusConflict)
	sha, err := f.MergePull(ctx, "acme", "catalog", p.Number, hub.Merge{SHA: "h1"})
	must(t, "merge", err)
	got, _ := f.GetPull(ctx, "acme", "catalog", p.Number)
	if len(sha) != 40 || !got.Merged || got.State != "closed" || got.MergeCommitSHA != sha || got.MergedAt.IsZero() ||
		f.Refs["refs/heads/main"] != sha {
		t.Fatalf("merged %q: %+v, main at %s", sha, got, f.Refs["refs/heads/main"])
	}
	_, err = f.MergePull(ctx, "acme", "catalog", p.Number, hub.Merge{})
	wantStatus(t, "merge a closed pull", err, http.StatusMethodNotAllowed)

	with, _, _ := f.ListPullsWithCommit(ctx, "acme", "catalog", sha, hub.Page{})
	if !slices.Equal(numbers(with), []int{p.Number}) {
		t.Fatalf("pulls with the merge commit %v", numbers(with))
	}
}

func TestFakeValuesAreCopies(t *testing.T) {
	f := &Fake{Pulls: []hub.Pull{{Number: 1, State: "open", Labels: []string{"a"}}}}
	p, _ := f.GetPull(ctx, "o", "r", 1)
	p.Labels[0] = "changed"
	if again, _ := f.GetPull(ctx, "o", "r", 1); again.Labels[0] != "a" {
		t.Fatalf("a returned value shares the fake's state: %q", again.Labels)
	}
}

func TestFakeRefsPeopleRepos(t *testing.T) {
	f := &Fake{Refs: map[string]string{"refs/heads/main": "m0"},
		Permissions: map[string]hub.Permission{"alice": {Level: "admin"}, "bob": {Level: "write", Role: "maintain"}},
		Teams:       map[string][]string{"acme/platform": {"alice"}},
		Repos: map[string]hub.Repository{"acme/catalog": {Owner: "acme", Name: "catalog", Visibility: "private"},
			"acme/api": {Owner: "acme", Name: "api"}},
		Authors: map[string]string{"m0": "alice"}}

	err := f.CreateRef(ctx, "acme", "catalog", "refs/heads/main", "x")
	wantStatus(t, "existing ref", err, http.StatusUnprocessableEntity)
	if !hub.IsUnprocessable(err) {
		t.Fatal("IsUnprocessable")
	}
	wantStatus(t, "bad ref", f.CreateRef(ctx, "acme", "catalog", "main", "x"), http.StatusUnprocessableEntity)
	must(t, "create ref", f.CreateRef(ctx, "acme", "catalog", "refs/tags/v1", "m0"))
	if f.Refs["refs/tags/v1"] != "m0" {
		t.Fatalf("refs %v", f.Refs)
	}
	if err := (&Fake{}).CreateRef(ctx, "o", "r", "refs/heads/x", "s"); err != nil {
		t.Fatalf("a fake without refs: %v", err)
	}

	p, err := f.Permission(ctx, "acme", "catalog", "Alice")
	if err != nil || p != (hub.Permission{Level: "admin", Role: "admin"}) {
		t.Fatalf("alice %+v %v", p, err)
	}
	if p, _ := f.Permission(ctx, "acme", "catalog", "bob"); p.Role != "maintain" {
		t.Fatalf("bob %+v", p)
	}
	_, err = f.Permission(ctx, "acme", "catalog", "nobody")
	wantStatus(t, "unknown user", err, http.StatusNotFound)

	if m, err := f.TeamMembership(ctx, "acme", "platform", "ALICE"); err != nil || m.State != "active" {
		t.Fatalf("alice in platform %+v %v", m, err)
	}
	_, err = f.TeamMembership(ctx, "acme", "platform", "bob")
	wantStatus(t, "bob in platform", err, http.StatusNotFound)

	r, err := f.GetRepository(ctx, "ACME", "Catalog")
	if err != nil || r.Visibility != "private" {
		t.Fatalf("repository %+v %v", r, err)
	}
	_, err = f.GetRepository(ctx, "acme", "nope")
	wantStatus(t, "absent repository", err, http.StatusNotFound)
	repos, total, _, _ := f.ListInstallationRepos(ctx, hub.Page{})
	if total != 2 || len(repos) != 2 || repos[0].Name != "api" || repos[1].Name != "catalog" {
		t.Fatalf("installation repos %d %+v", total, repos)
	}
	if a, _ := f.CommitAuthor(ctx, "acme", "catalog", "m0"); a != "alice" {
		t.Fatalf("author %q", a)
	}
}

func TestFakeCommentsAndLabels(t *testing.T) {
	f := &Fake{Pulls: []hub.Pull{{Number: 1, State: "open"}}, Issues: []hub.Issue{{Number: 2, State: "open"}}}
	_, err := f.CreateComment(ctx, "o", "r", 3, "x")
	wantStatus(t, "comment on nothing", err, http.StatusNotFound)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	f.Now = func() time.Time { clock = clock.Add(time.Minute); return clock }

	c1, _ := f.CreateComment(ctx, "o", "r", 1, "one")
	c2, _ := f.CreateComment(ctx, "o", "r", 2, "on the issue")
	c3, _ := f.CreateComment(ctx, "o", "r", 1, "three")
	if c1.ID != 1 || c2.ID != 2 || c3.ID != 3 || c3.Body != "three" || !c3.CreatedAt.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("comments %+v %+v %+v", c1, c2, c3)
	}
	if p, _ := f.GetPull(ctx, "o", "r", 1); p.Comments == nil || *p.Comments != 2 {
		t.Fatalf("comment count %v", p.Comments)
	}
	cs, _, _ := f.ListComments(ctx, "o", "r", 1, hub.CommentQuery{Since: t0.Add(2 * time.Minute)})
	if len(cs) != 1 || cs[0].ID != 3 {
		t.Fatalf("since %+v", cs)
	}
	cs, _, _ = f.ListComments(ctx, "o", "r", 1, hub.CommentQuery{Sort: "created", Direction: "desc"})
	if len(cs) != 2 || cs[0].ID != 3 || cs[1].ID != 1 {
		t.Fatalf("desc %+v", cs)
	}
	must(t, "delete", f.DeleteComment(ctx, "o", "r", 1))
	wantStatus(t, "delete again", f.DeleteComment(ctx, "o", "r", 1), http.StatusNotFound)
	if cs, _, _ := f.ListComments(ctx, "o", "r", 1, hub.CommentQuery{}); len(cs) != 1 || cs[0].ID != 3 {
		t.Fatalf("after delete %+v", cs)
	}

	must(t, "label the pull", f.AddLabels(ctx, "o", "r", 1, []string{"a", "b", "A"}))
	must(t, "label the issue", f.AddLabels(ctx, "o", "r", 2, []string{"x"}))
	wantStatus(t, "label nothing", f.AddLabels(ctx, "o", "r", 9, []string{"x"}), http.StatusNotFound)
	must(t, "remove", f.RemoveLabel(ctx, "o", "r", 1, "A"))
	wantStatus(t, "remove again", f.RemoveLabel(ctx, "o", "r", 1, "a"), http.StatusNotFound)
	if !slices.Equal(f.Pulls[0].Labels, []string{"b"}) || !slices.Equal(f.Issues[0].Labels, []string{"x"}) {
		t.Fatalf("labels %q %q", f.Pulls[0].Labels, f.Issues[0].Labels)
	}
}

func TestFakeCheckRuns(t *testing.T) {
	f := &Fake{Refs: map[string]string{"refs/heads/feature": "h1"}}
	_, err := f.CreateCheckRun(ctx, "o", "r", hub.CheckRunWrite{Name: "x"})
	wantStatus(t, "no head", err, http.StatusUnprocessableEntity)
	first, _ := f.CreateCheckRun(ctx, "o", "r", hub.CheckRunWrite{Name: "render", HeadSHA: "h1",
		Output: &hub.CheckOutput{Title: "t", Annotations: []hub.CheckAnnotation{{Path: "a"}}}})
	second, _ := f.CreateCheckRun(ctx, "o", "r", hub.CheckRunWrite{Name: "render", HeadSHA: "h1", Status: "in_progress"})
	other, _ := f.CreateCheckRun(ctx, "o", "r", hub.CheckRunWrite{Name: "config", HeadSHA: "h1"})
	f.CreateCheckRun(ctx, "o", "r", hub.CheckRunWrite{Name: "render", HeadSHA: "h0"})
	if first.Status != "queued" || first.AppSlug != "porchbot" || second.ID != first.ID+1 || second.Status != "in_progress" {
		t.Fatalf("created %+v %+v", first, second)
	}

	up, err := f.UpdateCheckRun(ctx, "o", "r", first.ID, hub.CheckRunWrite{Conclusion: "failure",
		Output: &hub.CheckOutput{Title: "done", Annotations: []hub.CheckAnnotation{{Path: "b"}}}})
	must(t, "update", err)
	if up.Name != "render" || up.Status != "completed" || up.Conclusion != "failure" || up.Output.Title != "done" ||
		len(up.Output.Annotations) != 2 {
		t.Fatalf("updated %+v", up)
	}
	_, err = f.UpdateCheckRun(ctx, "o", "r", 99, hub.CheckRunWrite{Status: "queued"})
	wantStatus(t, "update an absent run", err, http.StatusNotFound)

	ids := func(ref string, q hub.CheckQuery) []int64 {
		runs, _, err := f.ListCheckRuns(ctx, "o", "r", ref, q)
		must(t, "list", err)
		var out []int64
		for _, r := range runs.Runs {
			out = append(out, r.ID)
		}
		if runs.Total != len(out) {
			t.Fatalf("total %d for %d runs", runs.Total, len(out))
		}
		return out
	}
	for _, c := range []struct {
		ref  string
		q    hub.CheckQuery
		want []int64
	}{
		{"h1", hub.CheckQuery{}, []int64{second.ID, other.ID}},
		{"h1", hub.CheckQuery{Filter: "all"}, []int64{first.ID, second.ID, other.ID}},
		{"h1", hub.CheckQuery{Name: "render", Filter: "all"}, []int64{first.ID, second.ID}},
		{"feature", hub.CheckQuery{Name: "config"}, []int64{other.ID}},
		{"h2", hub.CheckQuery{}, nil},
	} {
		if got := ids(c.ref, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s %+v: got %v, want %v", c.ref, c.q, got, c.want)
		}
	}
}

func TestFakeIssues(t *testing.T) {
	f := &Fake{Login: "porchbot", Pulls: []hub.Pull{{Number: 1, State: "open", Title: "pull"}},
		Issues: []hub.Issue{{Number: 2, State: "closed", User: hub.User{Login: "alice"}}}}
	_, err := f.CreateIssue(ctx, "o", "r", hub.IssueWrite{Body: "no title"})
	wantStatus(t, "no title", err, http.StatusUnprocessableEntity)
	i, err := f.CreateIssue(ctx, "o", "r", hub.IssueWrite{Title: "Dashboard", Labels: []string{"dashboard"}})
	must(t, "create", err)
	if i.Number != 3 || i.State != "open" || i.User.Login != "porchbot" || i.IsPull {
		t.Fatalf("created %+v", i)
	}
	list := func(q hub.IssueQuery) []int {
		is, _, err := f.ListIssues(ctx, "o", "r", q)
		must(t, "list", err)
		var out []int
		for _, i := range is {
			out = append(out, i.Number)
		}
		return out
	}
	if got := list(hub.IssueQuery{}); !slices.Equal(got, []int{3}) {
		t.Fatalf("open issues %v", got)
	}
	if got := list(hub.IssueQuery{State: "all", Creator: "ALICE"}); !slices.Equal(got, []int{2}) {
		t.Fatalf("alice's %v", got)
	}
	if got := list(hub.IssueQuery{State: "all", Labels: []string{"dashboard", "other"}}); got != nil {
		t.Fatalf("with two labels %v", got)
	}
	e, err := f.EditIssue(ctx, "o", "r", 3, hub.IssueWrite{State: "closed", Labels: []string{}})
	must(t, "edit", err)
	if e.State != "closed" || e.Title != "Dashboard" || len(e.Labels) != 0 {
		t.Fatalf("edited %+v", e)
	}
	_, err = f.EditIssue(ctx, "o", "r", 3, hub.IssueWrite{State: "gone"})
	wantStatus(t, "bad state", err, http.StatusUnprocessableEntity)
	pi, err := f.GetIssue(ctx, "o", "r", 1)
	if err != nil || !pi.IsPull || pi.Title != "pull" {
		t.Fatalf("pull as issue %+v %v", pi, err)
	}
	_, err = f.GetIssue(ctx, "o", "r", 9)
	wantStatus(t, "absent issue", err, http.StatusNotFound)
}

func TestFakeReleasesAndActivities(t *testing.T) {
	f := &Fake{}
	r, err := f.CreateRelease(ctx, "o", "r", hub.Release{TagName: "pkg/v1"})
	must(t, "create", err)
	_, err = f.CreateRelease(ctx, "o", "r", hub.Release{TagName: "pkg/v1"})
	var he *hub.Error
	if !hub.IsUnprocessable(err) || !errors.As(err, &he) || !slices.Equal(he.Codes, []string{"already_exists"}) {
		t.Fatalf("same tag: %#v", err)
	}
	must(t, "upload", f.UploadReleaseAsset(ctx, "o", "r", r.ID, "index.yaml", "application/yaml", []byte("x")))
	wantStatus(t, "upload again", f.UploadReleaseAsset(ctx, "o", "r", r.ID, "index.yaml", "", nil), http.StatusUnprocessableEntity)
	wantStatus(t, "upload to nothing", f.UploadReleaseAsset(ctx, "o", "r", 99, "a", "", nil), http.StatusNotFound)
	if rels, _, _ := f.ListReleases(ctx, "o", "r", hub.Page{}); len(rels) != 1 || string(f.Assets[r.ID]["index.yaml"]) != "x" {
		t.Fatalf("releases %+v assets %v", rels, f.Assets)
	}

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Activities = []hub.Activity{{Ref: "refs/heads/main", After: "a", Timestamp: t0},
		{Ref: "refs/heads/x", After: "x", Timestamp: t0.Add(time.Hour)},
		{Ref: "refs/heads/main", After: "b", Timestamp: t0.Add(2 * time.Hour)}}
	as, _, _ := f.ListActivities(ctx, "o", "r", hub.ActivityQuery{Ref: "main"})
	if len(as) != 2 || as[0].After != "b" || as[1].After != "a" {
		t.Fatalf("activities of main %+v", as)
	}
}

func TestFakeConcurrentCalls(t *testing.T) {
	f := &Fake{Pulls: []hub.Pull{{Number: 1, State: "open"}}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = f.CreateComment(ctx, "o", "r", 1, "x")
		}()
	}
	wg.Wait()
	cs, _, _ := f.ListComments(ctx, "o", "r", 1, hub.CommentQuery{})
	seen := map[int64]bool{}
	for _, c := range cs {
		seen[c.ID] = true
	}
	if len(cs) != 8 || len(seen) != 8 || f.Count("CreateComment") != 8 {
		t.Fatalf("%d comments, %d ids, %d calls", len(cs), len(seen), f.Count("CreateComment"))
	}
}

func TestFakeReactionsAndSuites(t *testing.T) {
	f := &Fake{Pulls: []hub.Pull{{Number: 1, State: "open"}}, Suites: map[int64]string{7: "h1"},
		CheckRuns: []hub.CheckRun{{ID: 1, Name: "a", HeadSHA: "h1"}, {ID: 2, Name: "a", HeadSHA: "h1"},
			{ID: 3, Name: "b", HeadSHA: "h1"}, {ID: 4, Name: "a", HeadSHA: "h0"}}}
	c, _ := f.CreateComment(ctx, "o", "r", 1, "/porchbot approve")
	first, err := f.ReactToComment(ctx, "o", "r", c.ID, "eyes")
	must(t, "react", err)
	again, err := f.ReactToComment(ctx, "o", "r", c.ID, "eyes")
	must(t, "react again", err)
	other, _ := f.ReactToComment(ctx, "o", "r", c.ID, "rocket")
	if !first.Made || first.CreatedAt.IsZero() || again.Made || !again.CreatedAt.Equal(first.CreatedAt) || !other.Made {
		t.Fatalf("reactions %+v %+v %+v", first, again, other)
	}
	_, err = f.ReactToComment(ctx, "o", "r", 99, "eyes")
	wantStatus(t, "react to nothing", err, http.StatusNotFound)

	runs, _, err := f.ListSuiteCheckRuns(ctx, "o", "r", 7, hub.CheckQuery{Name: "ignored"})
	must(t, "suite runs", err)
	if runs.Total != 2 || runs.Runs[0].ID != 2 || runs.Runs[1].ID != 3 {
		t.Fatalf("latest runs of the suite %+v", runs)
	}
	if runs, _, _ := f.ListSuiteCheckRuns(ctx, "o", "r", 7, hub.CheckQuery{Filter: "all"}); runs.Total != 3 {
		t.Fatalf("all runs of the suite %+v", runs)
	}
	_, _, err = f.ListSuiteCheckRuns(ctx, "o", "r", 8, hub.CheckQuery{})
	wantStatus(t, "absent suite", err, http.StatusNotFound)
}

func TestFakeIssueCloseReopenSort(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	f := &Fake{Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	a, _ := f.CreateIssue(ctx, "o", "r", hub.IssueWrite{Title: "a"})
	b, _ := f.CreateIssue(ctx, "o", "r", hub.IssueWrite{Title: "b"})
	_, _ = f.CreateComment(ctx, "o", "r", a.Number, "x")

	closed, err := f.EditIssue(ctx, "o", "r", a.Number, hub.IssueWrite{State: "closed", StateReason: "not_planned"})
	must(t, "close", err)
	if closed.StateReason != "not_planned" || closed.ClosedAt.IsZero() || closed.ClosedBy.Login != "porchbot[bot]" {
		t.Fatalf("closed %+v", closed)
	}
	reopened, _ := f.EditIssue(ctx, "o", "r", a.Number, hub.IssueWrite{State: "open"})
	if reopened.StateReason != "reopened" || !reopened.ClosedAt.IsZero() || reopened.ClosedBy != (hub.User{}) ||
		!reopened.UpdatedAt.After(closed.UpdatedAt) {
		t.Fatalf("reopened %+v", reopened)
	}
	order := func(q hub.IssueQuery) []int {
		is, _, _ := f.ListIssues(ctx, "o", "r", q)
		var out []int
		for _, i := range is {
			out = append(out, i.Number)
		}
		return out
	}
	for _, c := range []struct {
		q    hub.IssueQuery
		want []int
	}{
		{hub.IssueQuery{}, []int{a.Number, b.Number}},
		{hub.IssueQuery{Sort: "created"}, []int{b.Number, a.Number}},
		{hub.IssueQuery{Sort: "created", Direction: "asc"}, []int{a.Number, b.Number}},
		{hub.IssueQuery{Sort: "updated"}, []int{a.Number, b.Number}},
		{hub.IssueQuery{Sort: "comments"}, []int{a.Number, b.Number}},
	} {
		if got := order(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
}
