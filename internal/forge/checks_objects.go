package forge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// JSON shapes of check runs and check suites, shared by the REST answers
// and the check_run / check_suite webhooks. They start from go-github's
// types (so go-github decodes them) and add what GitHub sends that those
// types do not carry (null conclusions, head_commit's webhook shape,
// latest_check_runs_count, ...).

// jsonObjectOf turns a value into its JSON object, numbers kept exact, so
// fields go-github does not model can be added and nulls set.
func jsonObjectOf(v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("forge: marshal %T: %v", v, err))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	m := map[string]any{}
	if err := dec.Decode(&m); err != nil {
		panic(fmt.Sprintf("forge: %T is not a JSON object: %v", v, err))
	}
	return m
}

// jsonNullStr is s, or JSON null when empty.
func jsonNullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checkAppObject is the App as check runs and suites carry it ("app").
func (f *Forge) checkAppObject() *github.App {
	app := f.appInfo()
	if app == nil {
		return nil
	}
	created := ts(time.Unix(1700000000, 0).UTC())
	return &github.App{
		ID: github.Int64(app.ID), Slug: github.String(app.Slug), NodeID: github.String(nodeID("App", app.ID)),
		Owner: f.userObject(app.Owner), Name: github.String(app.Name),
		Description: github.String("porchbot on the local forge"),
		ExternalURL: github.String(f.webBase()), HTMLURL: github.String(f.webBase() + "/apps/" + app.Slug),
		CreatedAt: created, UpdatedAt: created,
		Permissions: appPermissions(), Events: f.appEvents(),
	}
}

// appHomepage is where a check run's details_url points when the App
// gives none (GitHub uses the App's homepage).
func (f *Forge) appHomepage() string {
	if app := f.appInfo(); app != nil {
		return f.webBase() + "/apps/" + app.Slug
	}
	return f.webBase()
}

// checkPullRef is the short pull request object of check runs and suites.
type checkPullRef struct {
	ID      int64
	Number  int
	Head    string
	HeadSHA string
	Base    string
	BaseSHA string
}

// checkOpenPullsLocked lists the open pull requests whose head matches: a head
// sha (check runs) or a head branch (check suites). Caller holds repo.mu.
func checkOpenPullsLocked(repo *Repo, headSHA, headBranch string) []checkPullRef {
	var out []checkPullRef
	for _, p := range repo.Pulls {
		if p.Issue == nil || p.Issue.State != "open" || p.HeadRepo != nil {
			continue // GitHub lists no pull request from a fork on a check run
		}
		if headSHA != "" && p.HeadSHA != headSHA {
			continue
		}
		if headBranch != "" && p.Head != headBranch {
			continue
		}
		out = append(out, checkPullRef{ID: p.ID, Number: p.Issue.Number, Head: p.Head, HeadSHA: p.HeadSHA, Base: p.Base, BaseSHA: p.BaseSHA})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

func (f *Forge) checkPullRefObjects(repo *Repo, prs []checkPullRef) []*github.PullRequest {
	api := f.apiBase() + "/repos/" + repo.FullName()
	short := &github.Repository{ID: github.Int64(repo.ID), URL: github.String(api), Name: github.String(repo.Name)}
	out := make([]*github.PullRequest, 0, len(prs))
	for _, p := range prs {
		out = append(out, &github.PullRequest{
			URL: github.String(api + "/pulls/" + strconv.Itoa(p.Number)), ID: github.Int64(p.ID), Number: github.Int(p.Number),
			Head: &github.PullRequestBranch{Ref: github.String(p.Head), SHA: github.String(p.HeadSHA), Repo: short},
			Base: &github.PullRequestBranch{Ref: github.String(p.Base), SHA: github.String(p.BaseSHA), Repo: short},
		})
	}
	return out
}

// checkSuiteView is a consistent copy of a suite and what its JSON needs,
// taken under repo.mu.
type checkSuiteView struct {
	suite    CheckSuite
	runCount int // latest check runs (one per name)
	prs      []checkPullRef
}

// checkRunView is a consistent copy of a check run and its suite.
type checkRunView struct {
	run   CheckRun
	suite checkSuiteView
	prs   []checkPullRef
}

// suiteViewLocked snapshots a suite. Caller holds repo.mu.
func suiteViewLocked(repo *Repo, s *CheckSuite) checkSuiteView {
	names := map[string]bool{}
	for _, r := range repo.CheckRuns {
		if r.SuiteID == s.ID {
			names[r.Name] = true
		}
	}
	var prs []checkPullRef
	if s.HeadBranch != "" {
		prs = checkOpenPullsLocked(repo, "", s.HeadBranch)
	}
	return checkSuiteView{suite: *s, runCount: len(names), prs: prs}
}

// runViewLocked snapshots a check run. Caller holds repo.mu.
func runViewLocked(repo *Repo, r *CheckRun) checkRunView {
	v := checkRunView{run: *r, prs: checkOpenPullsLocked(repo, r.HeadSHA, "")}
	v.run.Annotations = append([]CheckAnnotation(nil), r.Annotations...)
	if s, ok := repo.Suites[r.SuiteID]; ok {
		v.suite = suiteViewLocked(repo, s)
	}
	return v
}

// checkHeadCommit is a commit in the shape of a webhook's head_commit.
func (f *Forge) checkHeadCommit(repo *Repo, sha string) map[string]any {
	out, err := f.git.run(repo.Path, nil, "log", "-1", "--format=%H%x00%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B", sha)
	if err != nil {
		return nil
	}
	p := strings.SplitN(string(out), "\x00", 9)
	if len(p) < 9 {
		return nil
	}
	return map[string]any{
		"id": p[0], "tree_id": p[1], "message": strings.TrimRight(p[8], "\n"), "timestamp": p[7],
		"author": f.gitPerson(p[2], p[3]), "committer": f.gitPerson(p[5], p[6]),
	}
}

// gitPerson is a commit's author or committer as webhooks show it:
// name, email, and the login of the account with that email, if any.
func (f *Forge) gitPerson(name, email string) map[string]any {
	m := map[string]any{"name": name, "email": email}
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, a := range f.accounts {
		if a.Email != "" && strings.EqualFold(a.Email, email) {
			m["username"] = a.Login
			break
		}
	}
	return m
}

// checkSuiteObject is a check suite as GitHub shows it.
func (f *Forge) checkSuiteObject(repo *Repo, v checkSuiteView) map[string]any {
	s := v.suite
	api := f.apiBase() + "/repos/" + repo.FullName()
	obj := &github.CheckSuite{
		ID: github.Int64(s.ID), NodeID: github.String(nodeID("CheckSuite", s.ID)),
		HeadBranch: github.String(s.HeadBranch), HeadSHA: github.String(s.HeadSHA),
		URL:       github.String(fmt.Sprintf("%s/check-suites/%d", api, s.ID)),
		BeforeSHA: github.String(s.Before), AfterSHA: github.String(s.After),
		Status: github.String(s.Status), Conclusion: github.String(s.Conclusion),
		CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt),
		App: f.checkAppObject(), PullRequests: f.checkPullRefObjects(repo, v.prs),
	}
	m := jsonObjectOf(obj)
	m["head_branch"] = jsonNullStr(s.HeadBranch)
	m["before"] = jsonNullStr(s.Before)
	m["after"] = jsonNullStr(s.After)
	m["conclusion"] = jsonNullStr(s.Conclusion)
	m["pull_requests"] = jsonNonNilSlice(m["pull_requests"])
	m["latest_check_runs_count"] = v.runCount
	m["check_runs_url"] = fmt.Sprintf("%s/check-suites/%d/check-runs", api, s.ID)
	m["rerequestable"] = true
	m["runs_rerequestable"] = true
	m["head_commit"] = f.checkHeadCommit(repo, s.HeadSHA)
	return m
}

func jsonNonNilSlice(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

// checkRunObject is a check run as GitHub shows it. withSuite embeds the
// full suite (webhooks); otherwise only its id (REST).
func (f *Forge) checkRunObject(repo *Repo, v checkRunView, withSuite bool) map[string]any {
	r := v.run
	api := f.apiBase() + "/repos/" + repo.FullName()
	obj := &github.CheckRun{
		ID: github.Int64(r.ID), NodeID: github.String(nodeID("CheckRun", r.ID)),
		HeadSHA: github.String(r.HeadSHA), ExternalID: github.String(r.ExternalID),
		URL:        github.String(fmt.Sprintf("%s/check-runs/%d", api, r.ID)),
		HTMLURL:    github.String(fmt.Sprintf("%s/%s/runs/%d", f.webBase(), repo.FullName(), r.ID)),
		DetailsURL: github.String(r.DetailsURL),
		Status:     github.String(r.Status), Conclusion: github.String(r.Conclusion),
		Output: &github.CheckRunOutput{
			Title: github.String(r.Title), Summary: github.String(r.Summary), Text: github.String(r.Text),
			AnnotationsCount: github.Int(len(r.Annotations)),
			AnnotationsURL:   github.String(fmt.Sprintf("%s/check-runs/%d/annotations", api, r.ID)),
		},
		Name: github.String(r.Name), App: f.checkAppObject(), PullRequests: f.checkPullRefObjects(repo, v.prs),
	}
	if r.StartedAt != nil {
		obj.StartedAt = ts(*r.StartedAt)
	}
	if r.CompletedAt != nil {
		obj.CompletedAt = ts(*r.CompletedAt)
	}
	m := jsonObjectOf(obj)
	m["conclusion"] = jsonNullStr(r.Conclusion)
	if r.CompletedAt == nil {
		m["completed_at"] = nil
	}
	if r.StartedAt == nil {
		m["started_at"] = nil
	}
	out := m["output"].(map[string]any)
	out["title"] = jsonNullStr(r.Title)
	out["summary"] = jsonNullStr(r.Summary)
	out["text"] = jsonNullStr(r.Text)
	m["pull_requests"] = jsonNonNilSlice(m["pull_requests"])
	if withSuite {
		m["check_suite"] = f.checkSuiteObject(repo, v.suite)
	} else {
		m["check_suite"] = map[string]any{"id": r.SuiteID}
	}
	return m
}

// annotationObject is one annotation as GET .../annotations lists it.
func (f *Forge) annotationObject(repo *Repo, headSHA string, a CheckAnnotation) map[string]any {
	m := map[string]any{
		"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
		"start_column": jsonNullInt(a.StartColumn), "end_column": jsonNullInt(a.EndColumn),
		"annotation_level": a.AnnotationLevel, "message": a.Message,
		"title": jsonNullStr(a.Title), "raw_details": jsonNullStr(a.RawDetails),
		"blob_href": fmt.Sprintf("%s/%s/blob/%s/%s", f.webBase(), repo.FullName(), headSHA, a.Path),
	}
	return m
}

func jsonNullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}
