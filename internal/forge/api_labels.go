package forge

import (
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/gorilla/mux"
)

// routesLabels serves labels: the repository's (create, get, list, edit,
// delete: write access) and an issue's or pull request's (list; add, which
// creates missing labels as GitHub does; replace; remove one; remove all:
// triage access). Label changes on pull requests send pull_request
// "labeled"/"unlabeled".
func (f *Forge) routesLabels(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/labels", f.repoHandler(PermRead, f.listLabels)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/labels", f.repoHandler(PermWrite, withBody(f.createLabel))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/labels/{name:.+}", f.repoHandler(PermRead, f.getLabel)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/labels/{name:.+}", f.repoHandler(PermWrite, withBody(f.editLabel))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/labels/{name:.+}", f.repoHandler(PermWrite, f.deleteLabel)).Methods(http.MethodDelete)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/labels", f.repoHandler(PermRead, onIssue(f.listIssueLabels))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/labels", f.addIssueLabels).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/labels", f.replaceIssueLabels).Methods(http.MethodPut)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/labels", f.repoHandler(PermTriage, onIssue(signedIn(f.removeIssueLabels)))).Methods(http.MethodDelete)
	api.HandleFunc("/repos/{owner}/{repo}/issues/{number}/labels/{name:.+}", f.removeIssueLabel).Methods(http.MethodDelete)
}

// defaultLabelColor is the color of labels created by naming them.
const defaultLabelColor = "ededed"

var labelColor = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// ensureLabelsLocked returns the labels named (case-insensitively),
// creating the missing ones. The caller holds repo.mu.
func (f *Forge) ensureLabelsLocked(repo *Repo, names []string) []*Label {
	var out []*Label
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		l := repo.Labels[strings.ToLower(name)]
		if l == nil {
			l = &Label{ID: f.newID(), Name: name, Color: defaultLabelColor}
			repo.Labels[strings.ToLower(name)] = l
		}
		out = append(out, l)
	}
	return out
}

// setIssueLabelsLocked makes an issue's labels exactly want (in order,
// duplicates dropped) and returns what was added and removed. The caller
// holds repo.mu.
func setIssueLabelsLocked(is *Issue, want []*Label) (added, removed []Label) {
	var names []string
	seen := map[string]bool{}
	for _, l := range want {
		k := strings.ToLower(l.Name)
		if seen[k] {
			continue
		}
		seen[k] = true
		names = append(names, l.Name)
		if !containsFold(is.Labels, l.Name) {
			added = append(added, *l)
		}
	}
	for _, old := range is.Labels {
		if !seen[strings.ToLower(old)] {
			removed = append(removed, Label{Name: old})
		}
	}
	is.Labels = names
	return added, removed
}

// labelEvents are the labeled/unlabeled events of a label change: issue
// events for every issue, pull_request webhooks for pull requests (the
// App does not hear "issues").
func labelEvents(v issueView, sender *Account, added, removed []Label, repo *Repo) []pullEvent {
	var evs []pullEvent
	for i := range added {
		evs = append(evs, pullEvent{view: v, action: "labeled", sender: sender, label: &added[i]})
	}
	for i := range removed {
		l := removed[i]
		if full := repo.Labels[strings.ToLower(l.Name)]; full != nil {
			l = *full
		}
		evs = append(evs, pullEvent{view: v, action: "unlabeled", sender: sender, label: &l})
	}
	return evs
}

func (f *Forge) listLabels(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	ls := make([]Label, 0, len(rc.repo.Labels))
	for _, l := range rc.repo.Labels {
		ls = append(ls, *l)
	}
	rc.repo.mu.Unlock()
	sort.Slice(ls, func(i, j int) bool { return strings.ToLower(ls[i].Name) < strings.ToLower(ls[j].Name) })
	writeJSON(w, r, http.StatusOK, f.labelObjects(rc.repo, paginate(w, r, f.BaseURL(), ls)))
}

type labelRequest struct {
	Name        *string `json:"name"`
	NewName     *string `json:"new_name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}

func (f *Forge) createLabel(w http.ResponseWriter, r *http.Request, rc *reqCtx, req labelRequest) {
	if req.Name == nil || strings.TrimSpace(*req.Name) == "" {
		validationFailed(w, "Label", "name", "missing_field", "")
		return
	}
	l := &Label{Name: strings.TrimSpace(*req.Name), Color: defaultLabelColor}
	if req.Color != nil {
		c := strings.TrimPrefix(*req.Color, "#")
		if !labelColor.MatchString(c) {
			validationFailed(w, "Label", "color", "invalid", "")
			return
		}
		l.Color = strings.ToLower(c)
	}
	if req.Description != nil {
		l.Description = *req.Description
	}
	rc.repo.mu.Lock()
	if rc.repo.Labels[strings.ToLower(l.Name)] != nil {
		rc.repo.mu.Unlock()
		validationFailed(w, "Label", "name", "already_exists", "")
		return
	}
	l.ID = f.newID()
	rc.repo.Labels[strings.ToLower(l.Name)] = l
	saved := *l
	rc.repo.mu.Unlock()
	obj := f.labelObject(rc.repo, saved)
	w.Header().Set("Location", obj.GetURL())
	writeJSON(w, r, http.StatusCreated, obj)
}

func (f *Forge) getLabel(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	l := rc.repo.Labels[strings.ToLower(mux.Vars(r)["name"])]
	var saved Label
	if l != nil {
		saved = *l
	}
	rc.repo.mu.Unlock()
	if l == nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.labelObject(rc.repo, saved))
}

func (f *Forge) editLabel(w http.ResponseWriter, r *http.Request, rc *reqCtx, req labelRequest) {
	newName := req.NewName
	if newName == nil {
		newName = req.Name // go-github's EditLabel sends "name"
	}
	if req.Color != nil && !labelColor.MatchString(strings.TrimPrefix(*req.Color, "#")) {
		validationFailed(w, "Label", "color", "invalid", "")
		return
	}
	key := strings.ToLower(mux.Vars(r)["name"])
	rc.repo.mu.Lock()
	l := rc.repo.Labels[key]
	if l == nil {
		rc.repo.mu.Unlock()
		notFound(w)
		return
	}
	if newName != nil && strings.TrimSpace(*newName) != "" && strings.TrimSpace(*newName) != l.Name {
		nn := strings.TrimSpace(*newName)
		if other := rc.repo.Labels[strings.ToLower(nn)]; other != nil && other != l {
			rc.repo.mu.Unlock()
			validationFailed(w, "Label", "name", "already_exists", "")
			return
		}
		for _, is := range rc.repo.Issues {
			for i, name := range is.Labels {
				if strings.EqualFold(name, l.Name) {
					is.Labels[i] = nn
				}
			}
		}
		delete(rc.repo.Labels, key)
		l.Name = nn
		rc.repo.Labels[strings.ToLower(nn)] = l
	}
	if req.Color != nil {
		l.Color = strings.ToLower(strings.TrimPrefix(*req.Color, "#"))
	}
	if req.Description != nil {
		l.Description = *req.Description
	}
	saved := *l
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.labelObject(rc.repo, saved))
}

func (f *Forge) deleteLabel(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	key := strings.ToLower(mux.Vars(r)["name"])
	rc.repo.mu.Lock()
	l := rc.repo.Labels[key]
	if l == nil {
		rc.repo.mu.Unlock()
		notFound(w)
		return
	}
	delete(rc.repo.Labels, key)
	for _, is := range rc.repo.Issues {
		is.Labels = removeFold(is.Labels, l.Name)
	}
	rc.repo.mu.Unlock()
	noContent(w)
}

func (f *Forge) listIssueLabels(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	v := viewIssueLocked(rc.repo, rc.repo.Issues[rc.number])
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.labelObjects(rc.repo, paginate(w, r, f.BaseURL(), v.Labels)))
}

// labelNames reads the bodies GitHub accepts for label lists: ["a","b"],
// {"labels":["a","b"]} or {"labels":[{"name":"a"}]}.
func labelNames(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var raw any
	if !decodeBody(w, r, &raw) {
		return nil, false
	}
	if m, ok := raw.(map[string]any); ok {
		raw = m["labels"]
	}
	var names []string
	list, ok := raw.([]any)
	if raw != nil && !ok {
		validationFailed(w, "Label", "labels", "invalid", "")
		return nil, false
	}
	for _, it := range list {
		switch x := it.(type) {
		case string:
			names = append(names, x)
		case map[string]any:
			if s, ok := x["name"].(string); ok {
				names = append(names, s)
			}
		default:
			validationFailed(w, "Label", "labels", "invalid", "")
			return nil, false
		}
	}
	return names, true
}

// changeIssueLabels serves a label change computed by change (under
// repo.mu) on an issue (triage access, signed in) and answers with the
// issue's labels.
func (f *Forge) changeIssueLabels(status int,
	change func(repo *Repo, is *Issue) (added, removed []Label, fail func())) http.HandlerFunc {
	return f.repoHandler(PermTriage, onIssue(signedIn(func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		repo := rc.repo
		repo.mu.Lock()
		is := repo.Issues[rc.number]
		added, removed, fail := change(repo, is)
		if fail != nil {
			repo.mu.Unlock()
			fail()
			return
		}
		if len(added)+len(removed) > 0 {
			is.UpdatedAt = f.now()
		}
		v := viewIssueLocked(repo, is)
		evs := labelEvents(v, rc.actor(), added, removed, repo)
		repo.mu.Unlock()
		f.emitPulls(repo, evs)
		writeJSON(w, r, status, f.labelObjects(repo, v.Labels))
	})))
}

func (f *Forge) addIssueLabels(w http.ResponseWriter, r *http.Request) {
	names, ok := labelNames(w, r)
	if !ok {
		return
	}
	f.changeIssueLabels(http.StatusOK, func(repo *Repo, is *Issue) ([]Label, []Label, func()) {
		want := f.ensureLabelsLocked(repo, is.Labels)
		want = append(want, f.ensureLabelsLocked(repo, names)...)
		a, rm := setIssueLabelsLocked(is, want)
		return a, rm, nil
	})(w, r)
}

func (f *Forge) replaceIssueLabels(w http.ResponseWriter, r *http.Request) {
	names, ok := labelNames(w, r)
	if !ok {
		return
	}
	f.changeIssueLabels(http.StatusOK, func(repo *Repo, is *Issue) ([]Label, []Label, func()) {
		a, rm := setIssueLabelsLocked(is, f.ensureLabelsLocked(repo, names))
		return a, rm, nil
	})(w, r)
}

func (f *Forge) removeIssueLabels(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rc.repo.mu.Lock()
	is := rc.repo.Issues[rc.number]
	_, removed := setIssueLabelsLocked(is, nil)
	v := viewIssueLocked(rc.repo, is)
	evs := labelEvents(v, rc.actor(), nil, removed, rc.repo)
	rc.repo.mu.Unlock()
	f.emitPulls(rc.repo, evs)
	noContent(w)
}

// removeIssueLabel removes one label; 404 "Label does not exist" when the
// issue does not carry it, as GitHub.
func (f *Forge) removeIssueLabel(w http.ResponseWriter, r *http.Request) {
	name := mux.Vars(r)["name"]
	f.changeIssueLabels(http.StatusOK, func(repo *Repo, is *Issue) ([]Label, []Label, func()) {
		if !containsFold(is.Labels, name) {
			return nil, nil, func() { writeError(w, http.StatusNotFound, "Label does not exist") }
		}
		var keep []*Label
		for _, l := range f.ensureLabelsLocked(repo, is.Labels) {
			if !strings.EqualFold(l.Name, name) {
				keep = append(keep, l)
			}
		}
		a, rm := setIssueLabelsLocked(is, keep)
		return a, rm, nil
	})(w, r)
}
