package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/hub"
)

// hubRig is the forge rig, an API over its installation client, and
// acme/catalog with a first commit on main.
type hubRig struct {
	*forgeRig
	ctx     context.Context
	api     API
	alice   *github.Client
	mainSHA string
}

func newHubRig(t *testing.T) *hubRig {
	t.Helper()
	rig := newForgeRig(t)
	ctx := context.Background()
	gh, err := rig.clients.Installation(ctx, rig.env.Installation.ID)
	if err != nil {
		t.Fatal(err)
	}
	alice, ok := rig.env.Forge.Account("alice")
	if !ok {
		t.Fatal("no alice")
	}
	sha, err := rig.env.Forge.CommitFiles("acme/catalog", "main", map[string][]byte{"README.md": []byte("hello\n")},
		"Initial commit", alice)
	if err != nil {
		t.Fatal(err)
	}
	return &hubRig{forgeRig: rig, ctx: ctx, api: NewAPI(gh), alice: rig.env.Client(forgetest.AliceToken), mainSHA: sha}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	if got := hub.StatusOf(err); got != status {
		t.Fatalf("%s: want status %d, got %d (%v)", what, status, got, err)
	}
}

// branch creates refs/heads/name at main through the API and commits a
// file on it as alice; it returns the branch's head.
func (r *hubRig) branch(t *testing.T, name, file string) string {
	t.Helper()
	must(t, "create "+name, r.api.CreateRef(r.ctx, "acme", "catalog", "refs/heads/"+name, r.mainSHA))
	c, _, err := r.alice.Repositories.CreateFile(r.ctx, "acme", "catalog", file, &github.RepositoryContentFileOptions{
		Message: github.String("Add " + file), Content: []byte("a: 1\n"), Branch: github.String(name)})
	must(t, "commit on "+name, err)
	return c.Commit.GetSHA()
}

func TestHubAPIRefsAndActivities(t *testing.T) {
	r := newHubRig(t)
	head := r.branch(t, "feature", "pkg/a.yaml")

	err := r.api.CreateRef(r.ctx, "acme", "catalog", "refs/heads/feature", r.mainSHA)
	if !hub.IsUnprocessable(err) {
		t.Fatalf("existing ref: want 422, got %v", err)
	}
	var er *github.ErrorResponse
	var he *hub.Error
	if !errors.As(err, &er) || !errors.As(err, &he) || he.Message == "" || he.Message != er.Message {
		t.Fatalf("want *hub.Error wrapping *github.ErrorResponse with its message, got %T %#v", err, err)
	}

	author, err := r.api.CommitAuthor(r.ctx, "acme", "catalog", head)
	must(t, "commit author", err)
	if author != "alice" {
		t.Fatalf("commit author %q, want alice", author)
	}

	acts, next, err := r.api.ListActivities(r.ctx, "acme", "catalog", hub.ActivityQuery{Ref: "feature"})
	must(t, "activities", err)
	var got []string
	for _, a := range acts {
		got = append(got, a.Type+" "+a.After)
		if a.Ref != "refs/heads/feature" || a.Actor == "" || a.Timestamp.IsZero() {
			t.Fatalf("activity %+v", a)
		}
	}
	if want := []string{"push " + head, "branch_creation " + r.mainSHA}; !slices.Equal(got, want) || next != (hub.Next{}) {
		t.Fatalf("activities %q next %+v, want %q", got, next, want)
	}
	one, next, err := r.api.ListActivities(r.ctx, "acme", "catalog", hub.ActivityQuery{Ref: "feature", PerPage: 1})
	must(t, "activities page 1", err)
	if len(one) != 1 || next.After == "" {
		t.Fatalf("first page %+v next %+v: want one activity and a cursor", one, next)
	}
	rest, _, err := r.api.ListActivities(r.ctx, "acme", "catalog", hub.ActivityQuery{Ref: "feature", PerPage: 1, After: next.After})
	must(t, "activities page 2", err)
	if len(rest) != 1 || rest[0].Type != "branch_creation" {
		t.Fatalf("second page %+v", rest)
	}
}

func TestHubAPIPulls(t *testing.T) {
	r := newHubRig(t)
	head := r.branch(t, "feature", "pkg/a.yaml")
	must(t, "draft branch", r.api.CreateRef(r.ctx, "acme", "catalog", "refs/heads/draft", head))

	p, err := r.api.CreatePull(r.ctx, "acme", "catalog", hub.NewPull{Title: "Add a", Head: "feature", Base: "main", Body: "body"})
	must(t, "create pull", err)
	if p.Number == 0 || p.State != "open" || p.Draft || p.Title != "Add a" || p.Body != "body" ||
		p.Head.Ref != "feature" || p.Head.SHA != head || p.Head.RepoFullName != "acme/catalog" || p.Head.RepoOwner != "acme" ||
		!p.Head.RepoPrivate || p.Base.Ref != "main" || p.Base.SHA != r.mainSHA || p.HTMLURL == "" || p.CreatedAt.IsZero() ||
		p.User.Type != "Bot" {
		t.Fatalf("created %+v", p)
	}
	d, err := r.api.CreatePull(r.ctx, "acme", "catalog", hub.NewPull{Title: "Draft", Head: "draft", Base: "main", Draft: true})
	must(t, "create draft", err)
	if !d.Draft {
		t.Fatalf("draft %+v", d)
	}

	got, err := r.api.GetPull(r.ctx, "acme", "catalog", p.Number)
	must(t, "get pull", err)
	if got.Number != p.Number || got.Head.SHA != head || got.Comments == nil || *got.Comments != 0 {
		t.Fatalf("got %+v", got)
	}
	_, err = r.api.GetPull(r.ctx, "acme", "catalog", 9999)
	if !hub.IsNotFound(err) {
		t.Fatalf("absent pull: want 404, got %v", err)
	}
	var he *hub.Error
	if !errors.As(err, &he) || he.Message != "Not Found" {
		t.Fatalf("absent pull: message %#v", err)
	}

	numbers := func(q hub.PullQuery) []int {
		t.Helper()
		ps, _, err := r.api.ListPulls(r.ctx, "acme", "catalog", q)
		must(t, "list pulls", err)
		var out []int
		for _, p := range ps {
			out = append(out, p.Number)
		}
		slices.Sort(out)
		return out
	}
	if n := numbers(hub.PullQuery{Head: "acme:feature"}); !slices.Equal(n, []int{p.Number}) {
		t.Fatalf("pulls of acme:feature %v", n)
	}
	if n := numbers(hub.PullQuery{State: "open", Base: "main"}); !slices.Equal(n, []int{p.Number, d.Number}) {
		t.Fatalf("open pulls into main %v", n)
	}
	if n := numbers(hub.PullQuery{State: "closed"}); len(n) != 0 {
		t.Fatalf("closed pulls %v", n)
	}
	page, next, err := r.api.ListPulls(r.ctx, "acme", "catalog", hub.PullQuery{Page: hub.Page{PerPage: 1}})
	must(t, "page of pulls", err)
	if len(page) != 1 || next.Page != 2 {
		t.Fatalf("page of 1: %d pulls, next %+v", len(page), next)
	}
	with, _, err := r.api.ListPullsWithCommit(r.ctx, "acme", "catalog", head, hub.Page{})
	must(t, "pulls with commit", err)
	if len(with) != 2 {
		t.Fatalf("pulls with %s: %+v", head, with)
	}

	title, body := "Add a (edited)", "new body"
	e, err := r.api.EditPull(r.ctx, "acme", "catalog", p.Number, hub.PullEdit{Title: title, Body: body})
	must(t, "edit pull", err)
	if e.Title != title || e.Body != body || e.State != "open" {
		t.Fatalf("edited %+v", e)
	}

	must(t, "request review", r.api.RequestReviewers(r.ctx, "acme", "catalog", p.Number, []string{"bob"}, nil))
	rev, _, err := r.alice.PullRequests.ListReviewers(r.ctx, "acme", "catalog", p.Number, nil)
	must(t, "requested reviewers", err)
	if len(rev.Users) != 1 || rev.Users[0].GetLogin() != "bob" {
		t.Fatalf("requested %+v", rev.Users)
	}
	err = r.api.RequestReviewers(r.ctx, "acme", "catalog", p.Number, []string{"mallory"}, nil)
	wantStatus(t, "request a non-collaborator", err, http.StatusUnprocessableEntity)

	_, _, err = r.env.Client(forgetest.BobToken).PullRequests.CreateReview(r.ctx, "acme", "catalog", p.Number,
		&github.PullRequestReviewRequest{Event: github.String("APPROVE"), Body: github.String("lgtm")})
	must(t, "bob approves", err)
	reviews, _, err := r.api.ListReviews(r.ctx, "acme", "catalog", p.Number, hub.Page{})
	must(t, "reviews", err)
	if len(reviews) != 1 || reviews[0].State != "APPROVED" || reviews[0].User.Login != "bob" ||
		reviews[0].CommitID != head || reviews[0].Body != "lgtm" || reviews[0].ID == 0 || reviews[0].SubmittedAt.IsZero() {
		t.Fatalf("reviews %+v", reviews)
	}

	_, err = r.api.MergePull(r.ctx, "acme", "catalog", p.Number, hub.Merge{SHA: r.mainSHA})
	wantStatus(t, "merge at a stale head", err, http.StatusConflict)
	sha, err := r.api.MergePull(r.ctx, "acme", "catalog", p.Number, hub.Merge{Message: "merge it", SHA: head, Method: "merge"})
	must(t, "merge", err)
	merged, err := r.api.GetPull(r.ctx, "acme", "catalog", p.Number)
	must(t, "get merged", err)
	if sha == "" || !merged.Merged || merged.MergeCommitSHA != sha || merged.MergedAt.IsZero() || merged.State != "closed" {
		t.Fatalf("merged %q: %+v", sha, merged)
	}
}

func TestHubAPIIssuesCommentsLabels(t *testing.T) {
	r := newHubRig(t)
	r.branch(t, "feature", "pkg/a.yaml")
	p, err := r.api.CreatePull(r.ctx, "acme", "catalog", hub.NewPull{Title: "Add a", Head: "feature", Base: "main"})
	must(t, "create pull", err)

	c, err := r.api.CreateComment(r.ctx, "acme", "catalog", p.Number, "hello")
	must(t, "comment", err)
	if c.ID == 0 || c.Body != "hello" || c.User.Login == "" || c.HTMLURL == "" || c.CreatedAt.IsZero() ||
		!strings.HasSuffix(c.IssueURL, fmt.Sprintf("/repos/acme/catalog/issues/%d", p.Number)) {
		t.Fatalf("comment %+v", c)
	}
	cs, _, err := r.api.ListComments(r.ctx, "acme", "catalog", p.Number, hub.CommentQuery{Sort: "created", Direction: "asc"})
	must(t, "list comments", err)
	if len(cs) != 1 || cs[0].ID != c.ID || cs[0].Body != "hello" {
		t.Fatalf("comments %+v", cs)
	}
	cs, _, err = r.api.ListComments(r.ctx, "acme", "catalog", p.Number, hub.CommentQuery{Since: time.Now().Add(time.Hour)})
	must(t, "list comments since", err)
	if len(cs) != 0 {
		t.Fatalf("comments since an hour ahead %+v", cs)
	}
	made, err := r.api.ReactToComment(r.ctx, "acme", "catalog", c.ID, "eyes")
	must(t, "react", err)
	again, err := r.api.ReactToComment(r.ctx, "acme", "catalog", c.ID, "eyes")
	must(t, "react again", err)
	if !made.Made || made.CreatedAt.IsZero() || again.Made || !again.CreatedAt.Equal(made.CreatedAt) {
		t.Fatalf("reactions %+v then %+v", made, again)
	}
	must(t, "delete comment", r.api.DeleteComment(r.ctx, "acme", "catalog", c.ID))
	cs, _, err = r.api.ListComments(r.ctx, "acme", "catalog", p.Number, hub.CommentQuery{})
	must(t, "list comments after delete", err)
	if len(cs) != 0 {
		t.Fatalf("comments after delete %+v", cs)
	}
	wantStatus(t, "delete again", r.api.DeleteComment(r.ctx, "acme", "catalog", c.ID), http.StatusNotFound)

	must(t, "add labels", r.api.AddLabels(r.ctx, "acme", "catalog", p.Number, []string{"porch", "review"}))
	must(t, "remove label", r.api.RemoveLabel(r.ctx, "acme", "catalog", p.Number, "porch"))
	got, err := r.api.GetPull(r.ctx, "acme", "catalog", p.Number)
	must(t, "get pull", err)
	if !slices.Equal(got.Labels, []string{"review"}) || !got.HasLabel("REVIEW") {
		t.Fatalf("labels %q", got.Labels)
	}
	wantStatus(t, "remove an absent label", r.api.RemoveLabel(r.ctx, "acme", "catalog", p.Number, "porch"), http.StatusNotFound)

	title, body, labels := "Dashboard", "all well", []string{"dashboard"}
	i, err := r.api.CreateIssue(r.ctx, "acme", "catalog", hub.IssueWrite{Title: title, Body: body, Labels: labels})
	must(t, "create issue", err)
	if i.Number == 0 || i.Title != title || i.Body != body || i.State != "open" || i.IsPull ||
		!slices.Equal(i.Labels, labels) || i.HTMLURL == "" || i.User.Login == "" || i.CreatedAt.IsZero() ||
		!i.ClosedAt.IsZero() {
		t.Fatalf("issue %+v", i)
	}
	is, _, err := r.api.ListIssues(r.ctx, "acme", "catalog", hub.IssueQuery{State: "open", Labels: labels})
	must(t, "list issues", err)
	if len(is) != 1 || is[0].Number != i.Number {
		t.Fatalf("issues labelled dashboard %+v", is)
	}
	is, _, err = r.api.ListIssues(r.ctx, "acme", "catalog", hub.IssueQuery{State: "all", Sort: "created", Direction: "asc"})
	must(t, "list everything", err)
	if len(is) != 2 || is[0].Number != p.Number || !is[0].IsPull || is[1].Number != i.Number {
		t.Fatalf("issues and pulls, oldest first %+v", is)
	}
	is, _, err = r.api.ListIssues(r.ctx, "acme", "catalog", hub.IssueQuery{Creator: "alice"})
	must(t, "list issues by alice", err)
	if len(is) != 0 {
		t.Fatalf("issues by alice %+v", is)
	}
	e, err := r.api.EditIssue(r.ctx, "acme", "catalog", i.Number, hub.IssueWrite{State: "closed", StateReason: "not_planned"})
	must(t, "edit issue", err)
	// (the forge keeps no state_reason: TestHubWrites checks it is sent)
	if e.State != "closed" || e.Title != title || !slices.Equal(e.Labels, labels) ||
		e.ClosedAt.IsZero() || e.ClosedBy.Login != i.User.Login {
		t.Fatalf("edited %+v", e)
	}
	g, err := r.api.GetIssue(r.ctx, "acme", "catalog", i.Number)
	must(t, "get issue", err)
	if g.State != "closed" || g.Body != body {
		t.Fatalf("read back %+v", g)
	}
	pi, err := r.api.GetIssue(r.ctx, "acme", "catalog", p.Number)
	must(t, "get the pull as an issue", err)
	if !pi.IsPull {
		t.Fatalf("pull as issue %+v", pi)
	}
}

func TestHubAPIChecks(t *testing.T) {
	r := newHubRig(t)
	head := r.branch(t, "feature", "pkg/a.yaml")
	started := time.Now().Add(-time.Minute).Truncate(time.Second).UTC()
	run, err := r.api.CreateCheckRun(r.ctx, "acme", "catalog", hub.CheckRunWrite{Name: "porchbot/render", HeadSHA: head,
		Status: "in_progress", ExternalID: "attempt-1", StartedAt: started,
		Output: &hub.CheckOutput{Title: "Rendering", Summary: "rendering pkg", Annotations: []hub.CheckAnnotation{
			{Path: "pkg/a.yaml", StartLine: 1, EndLine: 1, StartColumn: 3, Level: "warning", Message: "one line"},
			{Path: "pkg/a.yaml", StartLine: 1, EndLine: 2, StartColumn: 2, EndColumn: 5, Level: "failure", Message: "two lines"},
			{Path: "pkg/a.yaml", Title: "no line, no level"},
		}}})
	must(t, "create check run", err)
	if run.ID == 0 || run.Name != "porchbot/render" || run.HeadSHA != head || run.Status != "in_progress" ||
		run.ExternalID != "attempt-1" || run.AppSlug != "porchbot" || !run.StartedAt.Equal(started) ||
		run.Output.Title != "Rendering" || run.Output.Summary != "rendering pkg" {
		t.Fatalf("created %+v", run)
	}
	anns, _, err := r.api.GH.Checks.ListCheckRunAnnotations(r.ctx, "acme", "catalog", run.ID, nil)
	must(t, "annotations", err)
	var got []hub.CheckAnnotation
	for _, a := range anns {
		got = append(got, annotationOf(a))
	}
	want := []hub.CheckAnnotation{
		{Path: "pkg/a.yaml", StartLine: 1, EndLine: 1, StartColumn: 3, EndColumn: 3, Level: "warning", Message: "one line"},
		{Path: "pkg/a.yaml", StartLine: 1, EndLine: 2, Level: "failure", Message: "two lines"},
		{Path: "pkg/a.yaml", StartLine: 1, EndLine: 1, Level: "notice", Title: "no line, no level", Message: "no line, no level"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("annotations\n got %+v\nwant %+v", got, want)
	}

	done := time.Now().Truncate(time.Second).UTC()
	up, err := r.api.UpdateCheckRun(r.ctx, "acme", "catalog", run.ID, hub.CheckRunWrite{Name: "porchbot/render",
		Status: "completed", Conclusion: "success", CompletedAt: done,
		Output: &hub.CheckOutput{Title: "Rendered", Summary: "ok", Text: "details"}})
	must(t, "update check run", err)
	if up.ID != run.ID || up.Status != "completed" || up.Conclusion != "success" || !up.CompletedAt.Equal(done) ||
		up.Output.Title != "Rendered" || up.Output.Text != "details" || up.ExternalID != "attempt-1" {
		t.Fatalf("updated %+v", up)
	}
	_, err = r.api.CreateCheckRun(r.ctx, "acme", "catalog", hub.CheckRunWrite{Name: "other", HeadSHA: head})
	must(t, "create another run", err)

	runs, _, err := r.api.ListCheckRuns(r.ctx, "acme", "catalog", head, hub.CheckQuery{Name: "porchbot/render"})
	must(t, "list runs by name", err)
	if runs.Total != 1 || len(runs.Runs) != 1 || runs.Runs[0].ID != run.ID || runs.Runs[0].Conclusion != "success" {
		t.Fatalf("runs named porchbot/render %+v", runs)
	}
	runs, _, err = r.api.ListCheckRuns(r.ctx, "acme", "catalog", "feature", hub.CheckQuery{AppID: forgetest.AppID, Filter: "all"})
	must(t, "list runs of the branch", err)
	if runs.Total != 2 || len(runs.Runs) != 2 {
		t.Fatalf("runs of feature %+v", runs)
	}
	_, err = r.api.UpdateCheckRun(r.ctx, "acme", "catalog", 999999, hub.CheckRunWrite{Name: "x", Status: "queued"})
	wantStatus(t, "update an absent run", err, http.StatusNotFound)
}

func TestHubAPIRepositoryAndPeople(t *testing.T) {
	r := newHubRig(t)
	repo, err := r.api.GetRepository(r.ctx, "acme", "catalog")
	must(t, "get repository", err)
	if repo.Owner != "acme" || repo.Name != "catalog" || repo.FullName != "acme/catalog" || repo.DefaultBranch != "main" ||
		!repo.Private || repo.Visibility != "private" || repo.HTMLURL == "" {
		t.Fatalf("repository %+v", repo)
	}
	wantStatus(t, "absent repository", func() error { _, err := r.api.GetRepository(r.ctx, "acme", "nope"); return err }(),
		http.StatusNotFound)

	for login, want := range map[string]hub.Permission{"alice": {Level: "admin", Role: "admin"},
		"bob": {Level: "write", Role: "write"}, "carol": {Level: "read", Role: "read"}} {
		got, err := r.api.Permission(r.ctx, "acme", "catalog", login)
		must(t, "permission of "+login, err)
		if got != want {
			t.Fatalf("permission of %s %+v, want %+v", login, got, want)
		}
	}
	_, err = r.api.Permission(r.ctx, "acme", "catalog", "nobody")
	if !hub.IsNotFound(err) {
		t.Fatalf("permission of an unknown user: want 404, got %v", err)
	}

	m, err := r.api.TeamMembership(r.ctx, "acme", "platform", "alice")
	must(t, "alice in platform", err)
	if m.State != "active" || m.Role != "member" {
		t.Fatalf("membership %+v", m)
	}
	_, err = r.api.TeamMembership(r.ctx, "acme", "platform", "bob")
	wantStatus(t, "bob in platform", err, http.StatusNotFound)

	repos, total, _, err := r.api.ListInstallationRepos(r.ctx, hub.Page{})
	must(t, "installation repositories", err)
	if total != 1 || len(repos) != 1 || repos[0].FullName != "acme/catalog" || repos[0].Visibility != "private" {
		t.Fatalf("installation repositories %d %+v", total, repos)
	}

	// A rate limit the transport gives up on is an answered call too.
	r.env.Forge.SetFaults(forge.Faults{PrimaryRateLimit: 1, PrimaryResetSeconds: 3600, PathPrefix: "/repos/"})
	_, err = r.api.GetRepository(r.ctx, "acme", "catalog")
	var rl *RateLimitError
	if !hub.IsRateLimited(err) || hub.StatusOf(err) != http.StatusForbidden || !errors.As(err, &rl) {
		t.Fatalf("rate limited: want a rate-limited 403 wrapping *RateLimitError, got %T %v", err, err)
	}
}

func TestHubAPIReleases(t *testing.T) {
	r := newHubRig(t)
	rel, err := r.api.CreateRelease(r.ctx, "acme", "catalog", hub.Release{TagName: "pkg/v1", Name: "pkg v1",
		Body: "notes", TargetCommitish: r.mainSHA})
	must(t, "create release", err)
	if rel.ID == 0 || rel.TagName != "pkg/v1" || rel.Name != "pkg v1" || rel.Body != "notes" || rel.Draft || rel.HTMLURL == "" ||
		rel.CreatedAt.IsZero() {
		t.Fatalf("release %+v", rel)
	}
	_, err = r.api.CreateRelease(r.ctx, "acme", "catalog", hub.Release{TagName: "pkg/v1"})
	wantStatus(t, "the same tag again", err, http.StatusUnprocessableEntity)

	rels, _, err := r.api.ListReleases(r.ctx, "acme", "catalog", hub.Page{})
	must(t, "list releases", err)
	if len(rels) != 1 || rels[0].ID != rel.ID || rels[0].TagName != "pkg/v1" {
		t.Fatalf("releases %+v", rels)
	}

	data := []byte("apiVersion: v1\nentries: {}\n")
	must(t, "upload", r.api.UploadReleaseAsset(r.ctx, "acme", "catalog", rel.ID, "index.yaml", "application/yaml", data))
	assets, _, err := r.alice.Repositories.ListReleaseAssets(r.ctx, "acme", "catalog", rel.ID, nil)
	must(t, "list assets", err)
	if len(assets) != 1 || assets[0].GetName() != "index.yaml" || assets[0].GetSize() != len(data) ||
		assets[0].GetContentType() != "application/yaml" {
		t.Fatalf("assets %+v", assets)
	}
	err = r.api.UploadReleaseAsset(r.ctx, "acme", "catalog", rel.ID, "index.yaml", "application/yaml", data)
	var er *github.ErrorResponse
	var he *hub.Error
	if !hub.IsUnprocessable(err) || !errors.As(err, &er) || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" ||
		!errors.As(err, &he) || !slices.Equal(he.Codes, []string{"already_exists"}) {
		t.Fatalf("second upload: want 422 already_exists, got %#v", err)
	}
}

func TestHubConvertersOfNil(t *testing.T) {
	for name, got := range map[string]any{
		"PullOf": PullOf(nil), "BranchOf": BranchOf(nil), "UserOf": UserOf(nil), "ReviewOf": ReviewOf(nil),
		"CommentOf": CommentOf(nil), "CheckRunOf": CheckRunOf(nil), "RepositoryOf": RepositoryOf(nil),
		"IssueOf": IssueOf(nil), "ReleaseOf": ReleaseOf(nil), "LabelsOf": LabelsOf(nil), "ActivityOf": ActivityOf(nil),
		// empty values with nil fields inside
		"PullOf empty":     PullOf(&github.PullRequest{Head: &github.PullRequestBranch{}}),
		"CheckRunOf empty": CheckRunOf(&github.CheckRun{Output: &github.CheckRunOutput{Annotations: []*github.CheckRunAnnotation{nil}}}),
		"ActivityOf empty": ActivityOf(&Activity{}),
	} {
		if v := reflect.ValueOf(got); !v.IsZero() {
			t.Errorf("%s: want the zero value, got %+v", name, got)
		}
	}
}

func TestHubConverters(t *testing.T) {
	ts := github.Timestamp{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := PullOf(&github.PullRequest{Number: github.Int(7), State: github.String("closed"), Merged: github.Bool(true),
		MergedAt: &ts, Comments: github.Int(3), Labels: []*github.Label{{Name: github.String("a")}, {Name: github.String("b")}},
		Head: &github.PullRequestBranch{Ref: github.String("f"), Label: github.String("me:f"),
			Repo: &github.Repository{Owner: &github.User{Login: github.String("me")}, Name: github.String("r"), Fork: github.Bool(true)}}})
	if p.Number != 7 || !p.Merged || !p.MergedAt.Equal(ts.Time) || p.Comments == nil || *p.Comments != 3 ||
		!slices.Equal(p.Labels, []string{"a", "b"}) || p.Head.RepoOwner != "me" || p.Head.RepoName != "r" || !p.Head.RepoFork ||
		p.Head.Label != "me:f" || p.Base.HasRepo() {
		t.Fatalf("pull %+v", p)
	}
	a := ActivityOf(&Activity{Before: "b", After: "a", Ref: "refs/heads/main", Timestamp: &ts, ActivityType: "push",
		Actor: &github.User{Login: github.String("alice")}})
	if a != (hub.Activity{Before: "b", After: "a", Ref: "refs/heads/main", Timestamp: ts.Time, Type: "push", Actor: "alice"}) {
		t.Fatalf("activity %+v", a)
	}
	if i := IssueOf(&github.Issue{Number: github.Int(1), PullRequestLinks: &github.PullRequestLinks{}}); !i.IsPull {
		t.Fatalf("issue of a pull %+v", i)
	}
}

func TestHubRepositoryVisibility(t *testing.T) {
	for _, c := range []struct {
		name       string
		visibility *string
		private    *bool
		want       string
		wantPriv   bool
	}{
		{"visibility said", github.String("Internal"), github.Bool(true), "internal", true},
		{"visibility over private", github.String("public"), github.Bool(true), "public", true},
		{"private", nil, github.Bool(true), "private", true},
		{"public", nil, github.Bool(false), "public", false},
		{"not said", nil, nil, "", false},
		{"empty visibility", github.String(""), github.Bool(false), "public", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := RepositoryOf(&github.Repository{Visibility: c.visibility, Private: c.private})
			if r.Visibility != c.want || r.Private != c.wantPriv {
				t.Fatalf("visibility %q private %v, want %q %v", r.Visibility, r.Private, c.want, c.wantPriv)
			}
		})
	}
}

func TestHubError(t *testing.T) {
	answered := func(status int) *github.Response {
		return &github.Response{Response: &http.Response{StatusCode: status}}
	}
	plain := errors.New("dial tcp: refused")
	notFound := &github.ErrorResponse{Response: &http.Response{StatusCode: 404}, Message: "Not Found"}
	for _, c := range []struct {
		name        string
		resp        *github.Response
		err         error
		status      int
		message     string
		rateLimited bool
	}{
		{"no answer", nil, plain, 0, "", false},
		{"answer without a response", &github.Response{}, plain, 0, "", false},
		{"error response", answered(404), notFound, 404, "Not Found", false},
		{"accepted", answered(202), &github.AcceptedError{}, 202, "", false},
		{"go-github rate limit", answered(403), &github.RateLimitError{Message: "API rate limit exceeded"}, 403,
			"API rate limit exceeded", true},
		{"go-github abuse", answered(403), &github.AbuseRateLimitError{Message: "secondary"}, 403, "secondary", true},
		{"transport primary limit", nil, &RateLimitError{StatusCode: 429}, 429, "", true},
		{"transport secondary limit", nil, &SecondaryRateLimitError{StatusCode: 403, Message: "slow down"}, 403, "slow down", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := hubError(c.resp, c.err)
			if !errors.Is(got, c.err) {
				t.Fatalf("%v does not wrap %v", got, c.err)
			}
			var he *hub.Error
			if c.status == 0 {
				if got != c.err {
					t.Fatalf("want %v as is, got %#v", c.err, got)
				}
				return
			}
			if !errors.As(got, &he) || he.Status != c.status || he.Message != c.message || he.RateLimited != c.rateLimited {
				t.Fatalf("got %#v", got)
			}
		})
	}
	if hubError(answered(200), nil) != nil {
		t.Fatal("no error must stay nil")
	}
}

func TestHubWrites(t *testing.T) {
	ir := issueRequest(hub.IssueWrite{State: "closed", StateReason: "not_planned"})
	if ir.GetState() != "closed" || ir.GetStateReason() != "not_planned" || ir.Title != nil || ir.Body != nil || ir.Labels != nil {
		t.Fatalf("issue request %+v", ir)
	}
	if ir := issueRequest(hub.IssueWrite{Labels: []string{}}); ir.Labels == nil || len(*ir.Labels) != 0 {
		t.Fatalf("empty labels must be sent (to clear them): %+v", ir)
	}
	if checkOutput(nil) != nil {
		t.Fatal("no output must send none")
	}
	o := checkOutput(&hub.CheckOutput{})
	if o.Title == nil || o.Summary == nil || o.Text != nil || o.Annotations != nil {
		t.Fatalf("empty output %+v", o)
	}
	a := checkAnnotation(hub.CheckAnnotation{Path: "p", StartLine: 5, EndLine: 3, StartColumn: 4, EndColumn: 2, Message: "m"})
	if a.GetStartLine() != 5 || a.GetEndLine() != 5 || a.GetStartColumn() != 4 || a.GetEndColumn() != 4 || a.GetAnnotationLevel() != "notice" {
		t.Fatalf("annotation %+v", a)
	}
}

// TestLabelsOfTellsUnknownFromNone: labels GitHub did not give are nil
// (the lifecycle asks), an empty list is none (it does not).
func TestLabelsOfTellsUnknownFromNone(t *testing.T) {
	if got := LabelsOf(nil); got != nil {
		t.Errorf("no labels given: %#v, want nil", got)
	}
	for _, given := range [][]*github.Label{{}, {nil}} {
		if got := LabelsOf(given); got == nil || len(got) != 0 {
			t.Errorf("%d labels given, none named: %#v, want empty and not nil", len(given), got)
		}
	}
	if got := PullOf(&github.PullRequest{Labels: []*github.Label{{Name: github.String("porch/proposed")}}}); !got.HasLabel("PORCH/proposed") {
		t.Errorf("labels %v", got.Labels)
	}
}
