package forge

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesIssues serves issues: create, get, edit, list (pull requests
// included, with their "pull_request" key, as GitHub lists them), lock
// and unlock. The repository-wide comment list is routed here, ahead of
// /issues/{number} which would otherwise take "comments" for a number.
func (f *Forge) routesIssues(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/issues/comments", f.repoHandler(PermRead, f.listRepoComments)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues", f.repoHandler(PermRead, f.listIssues)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues", f.repoHandler(PermRead, signedIn(withBody(f.createIssue)))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}", f.repoHandler(PermRead, onIssue(f.getIssue))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}", f.repoHandler(PermRead, onIssue(signedIn(withBody(f.editIssue))))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/lock", f.repoHandler(PermWrite, onIssue(signedIn(f.lockIssue(true))))).Methods(http.MethodPut)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/lock", f.repoHandler(PermWrite, onIssue(signedIn(f.lockIssue(false))))).Methods(http.MethodDelete)
}

// issueRequest is the body of the create and edit endpoints.
type issueRequest struct {
	Title     *string   `json:"title"`
	Body      *string   `json:"body"`
	State     *string   `json:"state"`
	Labels    *[]any    `json:"labels"`
	Assignee  *string   `json:"assignee"`
	Assignees *[]string `json:"assignees"`
	Milestone any       `json:"milestone"`
}

// labelList reads "labels" given as names or as {"name": ...} objects.
func (req issueRequest) labelList() []string {
	if req.Labels == nil {
		return nil
	}
	var out []string
	for _, it := range *req.Labels {
		switch x := it.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			if s, ok := x["name"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// assigneeList is the wanted assignees, or nil when the request names none.
func (req issueRequest) assigneeList() *[]string {
	if req.Assignees != nil {
		return req.Assignees
	}
	if req.Assignee != nil {
		l := []string{}
		if *req.Assignee != "" {
			l = append(l, *req.Assignee)
		}
		return &l
	}
	return nil
}

// checkAssignees answers 422 and returns false when a login cannot be
// assigned (unknown, or without read access).
func (f *Forge) checkAssignees(w http.ResponseWriter, repo *Repo, logins []string) ([]string, bool) {
	var out []string
	for _, l := range logins {
		a, ok := f.Account(l)
		if !ok || a.Type == "Organization" || f.userPermission(a.Login, repo) < PermRead {
			validationFailed(w, "Issue", "assignees", "invalid", "")
			return nil, false
		}
		out = append(out, a.Login)
	}
	return out, true
}

// createIssue opens an issue (read access). Labels and assignees are kept
// only from triagers, silently dropped otherwise, as GitHub does; missing
// labels are created.
func (f *Forge) createIssue(w http.ResponseWriter, r *http.Request, rc *reqCtx, req issueRequest) {
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		validationFailed(w, "Issue", "title", "missing_field", "")
		return
	}
	triage := rc.perm >= PermTriage
	var assignees []string
	if al := req.assigneeList(); al != nil && triage {
		var ok bool
		if assignees, ok = f.checkAssignees(w, rc.repo, *al); !ok {
			return
		}
	}
	now := f.now()
	rc.repo.mu.Lock()
	is := &Issue{ID: f.newID(), Number: rc.repo.nextNumber, Title: *req.Title, State: "open", User: rc.actor(),
		CreatedAt: now, UpdatedAt: now, Assignees: assignees}
	if req.Body != nil {
		is.Body = *req.Body
	}
	if triage {
		setIssueLabelsLocked(is, f.ensureLabelsLocked(rc.repo, req.labelList()))
	}
	rc.repo.nextNumber++
	rc.repo.Issues[is.Number] = is
	rc.repo.UpdatedAt = now
	v := viewIssueLocked(rc.repo, is)
	rc.repo.mu.Unlock()
	obj := f.issueObject(rc.repo, v)
	f.emitIssue(rc.repo, "opened", v, rc.actor(), nil)
	w.Header().Set("Location", obj.GetURL())
	writeJSON(w, r, http.StatusCreated, obj)
}

func (f *Forge) getIssue(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	v := viewIssueLocked(rc.repo, rc.repo.Issues[rc.number])
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.issueObject(rc.repo, v))
}

// editIssue edits an issue (or a pull request's issue half): its author
// or triagers; labels and assignees only from triagers. For a pull
// request it sends the pull_request webhooks the change means.
func (f *Forge) editIssue(w http.ResponseWriter, r *http.Request, rc *reqCtx, req issueRequest) {
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		validationFailed(w, "Issue", "state", "invalid", "")
		return
	}
	if req.Title != nil && strings.TrimSpace(*req.Title) == "" {
		validationFailed(w, "Issue", "title", "missing_field", "")
		return
	}
	triage := rc.perm >= PermTriage
	var assignees *[]string
	if al := req.assigneeList(); al != nil && triage {
		checked, ok := f.checkAssignees(w, rc.repo, *al)
		if !ok {
			return
		}
		assignees = &checked
	}
	now := f.now()
	rc.repo.mu.Lock()
	is := rc.repo.Issues[rc.number]
	if is.User.ID != rc.actor().ID && !triage {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusForbidden, "Must have triage access to edit this issue.")
		return
	}
	pr := rc.repo.Pulls[rc.number]
	if !is.IsPull {
		pr = nil
	}
	changes := &github.EditChange{}
	edited := false
	if req.Title != nil && *req.Title != is.Title {
		changes.Title = &github.EditTitle{From: github.String(is.Title)}
		is.Title, edited = *req.Title, true
	}
	if req.Body != nil && *req.Body != is.Body {
		changes.Body = &github.EditBody{From: github.String(is.Body)}
		is.Body, edited = *req.Body, true
	}
	stateAction := ""
	if req.State != nil && *req.State != is.State {
		if pr != nil {
			if fail := f.setPullStateLocked(rc.repo, pr, *req.State, now); fail != "" {
				rc.repo.mu.Unlock()
				validationFailed(w, "Issue", "state", "custom", fail)
				return
			}
		} else if *req.State == "closed" {
			t := now
			is.State, is.ClosedAt, is.ClosedBy = "closed", &t, rc.actor()
		} else {
			is.State, is.ClosedAt, is.ClosedBy = "open", nil, nil
		}
		stateAction = map[string]string{"open": "reopened", "closed": "closed"}[*req.State]
	}
	var added, removed []Label
	if req.Labels != nil && triage {
		added, removed = setIssueLabelsLocked(is, f.ensureLabelsLocked(rc.repo, req.labelList()))
	}
	var assigned, unassigned []string
	if assignees != nil {
		for _, a := range *assignees {
			if !containsFold(is.Assignees, a) {
				assigned = append(assigned, a)
			}
		}
		for _, a := range is.Assignees {
			if !containsFold(*assignees, a) {
				unassigned = append(unassigned, a)
			}
		}
		is.Assignees = *assignees
	}
	if edited || stateAction != "" || len(added)+len(removed)+len(assigned)+len(unassigned) > 0 {
		is.UpdatedAt = now
	}
	v := viewIssueLocked(rc.repo, is)
	evs := labelEvents(v, rc.actor(), added, removed, rc.repo)
	rc.repo.mu.Unlock()

	{ // pull_request webhooks for a pull request; issue events for all
		var pre []pullEvent
		if edited {
			pre = append(pre, pullEvent{view: v, action: "edited", sender: rc.actor(), changes: changes})
		}
		if stateAction != "" {
			pre = append(pre, pullEvent{view: v, action: stateAction, sender: rc.actor()})
		}
		for _, a := range assigned {
			if acc, ok := f.Account(a); ok {
				pre = append(pre, pullEvent{view: v, action: "assigned", sender: rc.actor(), assignee: acc})
			}
		}
		for _, a := range unassigned {
			if acc, ok := f.Account(a); ok {
				pre = append(pre, pullEvent{view: v, action: "unassigned", sender: rc.actor(), assignee: acc})
			}
		}
		f.emitPulls(rc.repo, append(pre, evs...))
		if pr == nil {
			if edited {
				f.emitIssue(rc.repo, "edited", v, rc.actor(), changes)
			}
			if stateAction != "" {
				f.emitIssue(rc.repo, stateAction, v, rc.actor(), nil)
			}
		}
	}
	writeJSON(w, r, http.StatusOK, f.issueObject(rc.repo, v))
}

// listIssues lists issues and pull requests: state, labels (all must
// match), creator, assignee ("none", "*" or a login), since (updated at or
// after), sort (created, updated, comments), direction; paginated.
func (f *Forge) listIssues(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		validationFailed(w, "Issue", "state", "invalid", "")
		return
	}
	var labels []string
	if s := q.Get("labels"); s != "" {
		for _, l := range strings.Split(s, ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	since, ok := parseSince(w, q.Get("since"))
	if !ok {
		return
	}
	creator, assignee := q.Get("creator"), q.Get("assignee")
	rc.repo.mu.Lock()
	var issues []*Issue
	for _, is := range rc.repo.Issues {
		if state != "all" && is.State != state || !since.IsZero() && is.UpdatedAt.Before(since) ||
			creator != "" && !strings.EqualFold(is.User.Login, creator) {
			continue
		}
		switch assignee {
		case "":
		case "none":
			if len(is.Assignees) > 0 {
				continue
			}
		case "*":
			if len(is.Assignees) == 0 {
				continue
			}
		default:
			if !containsFold(is.Assignees, assignee) {
				continue
			}
		}
		all := true
		for _, l := range labels {
			if !containsFold(is.Labels, l) {
				all = false
				break
			}
		}
		if all {
			issues = append(issues, is)
		}
	}
	views := viewIssuesLocked(rc.repo, issues)
	rc.repo.mu.Unlock()
	sortIssueViews(views, q.Get("sort"), q.Get("direction"), false)
	page := paginate(w, r, f.BaseURL(), views)
	out := make([]*github.Issue, 0, len(page))
	for _, v := range page {
		out = append(out, f.issueObject(rc.repo, v))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// parseSince reads an ISO 8601 "since"; 422 when malformed.
func parseSince(w http.ResponseWriter, s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		validationFailed(w, "Issue", "since", "invalid", "since must be an ISO 8601 timestamp")
		return time.Time{}, false
	}
	return t, true
}

// lockIssue locks or unlocks a conversation (write access); 204.
func (f *Forge) lockIssue(lock bool) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		rc.repo.mu.Lock()
		is := rc.repo.Issues[rc.number]
		changed := is.Locked != lock
		is.Locked = lock
		v := viewIssueLocked(rc.repo, is)
		rc.repo.mu.Unlock()
		if changed { // an issue event for all; a webhook for a pull request
			action := "locked"
			if !lock {
				action = "unlocked"
			}
			f.emitPull(rc.repo, pullEvent{view: v, action: action, sender: rc.actor()})
		}
		noContent(w)
	}
}
