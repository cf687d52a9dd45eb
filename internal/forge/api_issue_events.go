package forge

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/gorilla/mux"
)

// routesIssueEvents serves issue events (of an issue, of the repository,
// one by id) and an issue's timeline. Registered before the issues
// routes, whose issues/{number} would read "events" as a number.
func (f *Forge) routesIssueEvents(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/issues/events", f.repoHandler(PermRead, f.listRepoIssueEvents)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/events/{id}", f.repoHandler(PermRead, f.getIssueEvent)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/events", f.repoHandler(PermRead, onIssue(f.listIssueEvents))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/timeline", f.repoHandler(PermRead, onIssue(f.listIssueTimeline))).Methods(http.MethodGet)
}

// issueEventObject is GitHub's issue event; with an issue view when the
// event is listed outside its issue.
func (f *Forge) issueEventObject(repo *Repo, ev IssueEvent, issue *issueView) map[string]any {
	api, _ := f.repoURLs(repo)
	obj := map[string]any{
		"id": ev.ID, "node_id": nodeID("IssueEvent", ev.ID), "url": fmt.Sprintf("%s/issues/events/%d", api, ev.ID),
		"actor": f.userObject(ev.Actor), "event": ev.Event, "commit_id": nil, "commit_url": nil,
		"created_at": ts(ev.CreatedAt), "performed_via_github_app": nil,
	}
	if ev.Actor == nil {
		obj["actor"] = nil
	}
	if ev.CommitID != "" {
		obj["commit_id"], obj["commit_url"] = ev.CommitID, api+"/commits/"+ev.CommitID
	}
	if ev.Label != nil {
		obj["label"] = map[string]any{"name": ev.Label.Name, "color": ev.Label.Color}
	}
	switch ev.Event {
	case "assigned", "unassigned":
		if ev.Subject != nil {
			obj["assignee"], obj["assigner"] = f.userObject(ev.Subject), obj["actor"]
		}
	case "review_requested", "review_request_removed":
		if ev.Subject != nil {
			obj["requested_reviewer"], obj["review_requester"] = f.userObject(ev.Subject), obj["actor"]
		}
	case "renamed":
		obj["rename"] = map[string]any{"from": ev.RenameFrom, "to": ev.RenameTo}
	}
	if issue != nil {
		obj["issue"] = f.issueObject(repo, *issue)
	}
	return obj
}

// issueEventsOf copies the repository's events keep admits, oldest first.
func issueEventsOf(repo *Repo, keep func(*IssueEvent) bool) []IssueEvent {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	var out []IssueEvent
	for _, ev := range repo.IssueEvents {
		if keep(ev) {
			out = append(out, *ev)
		}
	}
	return out
}

func (f *Forge) listIssueEvents(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	evs := issueEventsOf(rc.repo, func(ev *IssueEvent) bool { return ev.IssueNum == rc.number })
	out := []map[string]any{}
	for _, ev := range paginate(w, r, f.BaseURL(), evs) {
		out = append(out, f.issueEventObject(rc.repo, ev, nil))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// issueViewsOf copies the views of the issues numbered nums.
func issueViewsOf(repo *Repo, nums map[int]bool) map[int]issueView {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	var issues []*Issue
	for n := range nums {
		if is := repo.Issues[n]; is != nil {
			issues = append(issues, is)
		}
	}
	out := map[int]issueView{}
	for _, v := range viewIssuesLocked(repo, issues) {
		out[v.Issue.Number] = v
	}
	return out
}

// listRepoIssueEvents lists the repository's events, newest first, each
// with its issue.
func (f *Forge) listRepoIssueEvents(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	evs := issueEventsOf(rc.repo, func(*IssueEvent) bool { return true })
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].ID > evs[j].ID })
	pageEvs := paginate(w, r, f.BaseURL(), evs)
	nums := map[int]bool{}
	for _, ev := range pageEvs {
		nums[ev.IssueNum] = true
	}
	views := issueViewsOf(rc.repo, nums)
	out := []map[string]any{}
	for _, ev := range pageEvs {
		v, found := views[ev.IssueNum]
		var issue *issueView
		if found {
			issue = &v
		}
		out = append(out, f.issueEventObject(rc.repo, ev, issue))
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (f *Forge) getIssueEvent(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	id, ok := rc.intVar("id")
	if !ok {
		return
	}
	evs := issueEventsOf(rc.repo, func(ev *IssueEvent) bool { return ev.ID == id })
	if len(evs) == 0 {
		notFound(w)
		return
	}
	views := issueViewsOf(rc.repo, map[int]bool{evs[0].IssueNum: true})
	v := views[evs[0].IssueNum]
	writeJSON(w, r, http.StatusOK, f.issueEventObject(rc.repo, evs[0], &v))
}

// timelineItem is one entry of a timeline, ordered by time then id.
type timelineItem struct {
	at  time.Time
	id  int64
	obj map[string]any
}

// listIssueTimeline lists an issue's events, comments ("commented") and,
// for a pull request, its submitted reviews ("reviewed"), oldest first.
func (f *Forge) listIssueTimeline(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	var items []timelineItem
	for _, ev := range issueEventsOf(rc.repo, func(ev *IssueEvent) bool { return ev.IssueNum == rc.number }) {
		items = append(items, timelineItem{at: ev.CreatedAt, id: ev.ID, obj: f.issueEventObject(rc.repo, ev, nil)})
	}
	rc.repo.mu.Lock()
	var cs []*Comment
	for _, c := range rc.repo.Comments {
		if c.IssueNum == rc.number {
			cs = append(cs, c)
		}
	}
	comments := viewCommentsLocked(rc.repo, cs)
	var reviews []Review
	for _, rv := range rc.repo.Reviews {
		if rv.PullNum == rc.number && rv.State != "PENDING" {
			reviews = append(reviews, *rv)
		}
	}
	rc.repo.mu.Unlock()
	for _, c := range comments {
		obj := jsonObjectOf(f.commentObject(rc.repo, c))
		obj["event"], obj["actor"] = "commented", obj["user"]
		items = append(items, timelineItem{at: c.Comment.CreatedAt, id: c.Comment.ID, obj: obj})
	}
	for _, rv := range reviews {
		obj := jsonObjectOf(f.reviewObject(rc.repo, rv, false))
		obj["event"] = "reviewed"
		items = append(items, timelineItem{at: rv.SubmittedAt, id: rv.ID, obj: obj})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].at.Equal(items[j].at) {
			return items[i].at.Before(items[j].at)
		}
		return items[i].id < items[j].id
	})
	out := []map[string]any{}
	for _, it := range paginate(w, r, f.BaseURL(), items) {
		out = append(out, it.obj)
	}
	writeJSON(w, r, http.StatusOK, out)
}
