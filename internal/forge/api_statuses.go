package forge

import (
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesStatuses serves commit statuses: create on a sha (write access, as
// GitHub's push access), list for a ref (newest first) and the combined
// status of a ref (the latest status of each context). Registered before
// the commits routes, whose {ref} would swallow ".../status".
func (f *Forge) routesStatuses(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/statuses/{sha}", f.repoHandler(PermWrite, withBody(f.createStatus))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{ref:.+}/statuses", f.repoHandler(PermRead, f.listStatuses)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/commits/{ref:.+}/status", f.repoHandler(PermRead, f.combinedStatus)).Methods(http.MethodGet)
}

// GitHub's limits on commit statuses.
const (
	maxStatusesPerContext = 1000
	maxStatusDescription  = 140
	maxStatusContext      = 255
	maxStatusTargetURL    = 2048
)

var statusStates = map[string]bool{"error": true, "failure": true, "pending": true, "success": true}

type statusRequest struct {
	State       string `json:"state"`
	TargetURL   string `json:"target_url"`
	Description string `json:"description"`
	Context     string `json:"context"`
}

// statusObject is GitHub's status: go-github's RepoStatus with the nulls
// GitHub sends for an absent target_url or description.
func (f *Forge) statusObject(repo *Repo, s CommitStatus) map[string]any {
	api, _ := f.repoURLs(repo)
	obj := &github.RepoStatus{
		ID: github.Int64(s.ID), NodeID: github.String(nodeID("StatusContext", s.ID)),
		URL:   github.String(api + "/statuses/" + s.SHA),
		State: github.String(s.State), Context: github.String(s.Context),
		CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt),
	}
	if s.Creator != nil {
		obj.Creator = f.userObject(s.Creator)
		obj.AvatarURL = obj.Creator.AvatarURL
	}
	m := jsonObjectOf(obj)
	m["target_url"] = jsonNullStr(s.TargetURL)
	m["description"] = jsonNullStr(s.Description)
	if s.Creator == nil {
		m["creator"], m["avatar_url"] = nil, nil
	}
	return m
}

func (f *Forge) createStatus(w http.ResponseWriter, r *http.Request, rc *reqCtx, req statusRequest) {
	sha := mux.Vars(r)["sha"]
	switch {
	case !statusStates[req.State]:
		validationFailed(w, "Status", "state", "custom", "state is not included in the list")
		return
	case len(req.Description) > maxStatusDescription:
		validationFailed(w, "Status", "description", "custom", "description is too long (maximum is 140 characters)")
		return
	case len(req.Context) > maxStatusContext:
		validationFailed(w, "Status", "context", "custom", "context is too long (maximum is 255 characters)")
		return
	case len(req.TargetURL) > maxStatusTargetURL:
		validationFailed(w, "Status", "target_url", "custom", "target_url is too long")
		return
	}
	commit, found := f.peelRefToCommit(rc.repo, sha)
	if !found || commit != sha {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha)
		return
	}
	if req.Context == "" {
		req.Context = "default"
	}
	now := f.now()
	s := &CommitStatus{ID: f.newID(), SHA: sha, State: req.State, Context: req.Context, TargetURL: req.TargetURL,
		Description: req.Description, Creator: rc.actor(), CreatedAt: now, UpdatedAt: now}
	rc.repo.mu.Lock()
	n := 0
	for _, old := range rc.repo.Statuses {
		if old.SHA == sha && old.Context == s.Context {
			n++
		}
	}
	if n >= maxStatusesPerContext {
		rc.repo.mu.Unlock()
		validationFailed(w, "Status", "", "custom", "This SHA and context has reached the maximum number of statuses.")
		return
	}
	rc.repo.Statuses = append(rc.repo.Statuses, s)
	out := *s
	rc.repo.mu.Unlock()
	f.emitStatus(rc.repo, out)
	writeJSON(w, r, http.StatusCreated, f.statusObject(rc.repo, out))
}

// refStatuses is what the reads of a ref's statuses need.
type refStatuses struct {
	repo *Repo
	p    *principal
	sha  string
	all  []CommitStatus // newest first
}

// statusesOf reads the statuses of the request's ref for a reader; false
// when it answered (404 for a repository hidden or a ref naming no commit).
func (f *Forge) statusesOf(rc *reqCtx) (refStatuses, bool) {
	repo, p := rc.repo, rc.caller
	ref := mux.Vars(rc.r)["ref"]
	sha, ok := f.peelRefToCommit(repo, ref)
	if !ok {
		writeError(rc.w, http.StatusNotFound, "No commit found for SHA: "+ref)
		return refStatuses{}, false
	}
	repo.mu.Lock()
	out := shaStatusesLocked(repo, sha)
	repo.mu.Unlock()
	return refStatuses{repo: repo, p: p, sha: sha, all: out}, true
}

// shaStatusesLocked are the statuses of commit sha, newest first. Caller
// holds repo.mu.
func shaStatusesLocked(repo *Repo, sha string) []CommitStatus {
	var out []CommitStatus
	for i := len(repo.Statuses) - 1; i >= 0; i-- {
		if s := repo.Statuses[i]; s.SHA == sha {
			out = append(out, *s)
		}
	}
	return out
}

// latestByContext is the latest status of each context of all (newest
// first), sorted by context.
func latestByContext(all []CommitStatus) []CommitStatus {
	seen := map[string]bool{}
	var latest []CommitStatus
	for _, s := range all { // newest first: the first of a context is its latest
		if !seen[s.Context] {
			seen[s.Context] = true
			latest = append(latest, s)
		}
	}
	sort.SliceStable(latest, func(i, j int) bool { return latest[i].Context < latest[j].Context })
	return latest
}

func (f *Forge) listStatuses(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rs, ok := f.statusesOf(rc)
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, s := range paginate(w, r, f.BaseURL(), rs.all) {
		out = append(out, f.statusObject(rs.repo, s))
	}
	writeJSON(w, r, http.StatusOK, out)
}

// combinedState is GitHub's rule: failure if any latest status is error
// or failure, pending if there is none or any is pending, else success.
func combinedState(latest []CommitStatus) string {
	if len(latest) == 0 {
		return "pending"
	}
	state := "success"
	for _, s := range latest {
		switch s.State {
		case "error", "failure":
			return "failure"
		case "pending":
			state = "pending"
		}
	}
	return state
}

func (f *Forge) combinedStatus(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rs, ok := f.statusesOf(rc)
	if !ok {
		return
	}
	repo, sha := rs.repo, rs.sha
	latest := latestByContext(rs.all)
	state := combinedState(latest)
	statuses := []map[string]any{}
	for _, s := range paginate(w, r, f.BaseURL(), latest) {
		statuses = append(statuses, f.statusObject(repo, s))
	}
	api, _ := f.repoURLs(repo)
	writeJSON(w, r, http.StatusOK, map[string]any{
		"state": state, "sha": sha, "total_count": len(latest), "statuses": statuses,
		"repository": f.repoObjectFor(repo, rs.p), "commit_url": api + "/commits/" + sha, "url": api + "/commits/" + sha + "/status",
	})
}

// emitStatus sends the status webhook (to the App when it subscribes to
// it, as porchbot's does, and to repository hooks), with the branches
// whose head is the commit.
func (f *Forge) emitStatus(repo *Repo, s CommitStatus) {
	if !f.wantsHooks(repo) {
		return
	}
	commit, ok := f.oneCommit(repo, s.SHA)
	if !ok {
		return
	}
	api, _ := f.repoURLs(repo)
	branches := []map[string]any{}
	if refs, err := f.git.refs(repo.Path); err == nil {
		var names []string
		for ref, sha := range refs {
			if name, isBranch := strings.CutPrefix(ref, "refs/heads/"); isBranch && sha == s.SHA {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			branches = append(branches, map[string]any{"name": name, "protected": false,
				"commit": map[string]string{"sha": s.SHA, "url": api + "/commits/" + s.SHA}})
		}
	}
	payload := map[string]any{
		"id": s.ID, "sha": s.SHA, "name": repo.FullName(), "state": s.State, "context": s.Context,
		"description": jsonNullStr(s.Description), "target_url": jsonNullStr(s.TargetURL), "avatar_url": nil,
		"branches": branches, "commit": commit, "created_at": ts(s.CreatedAt), "updated_at": ts(s.UpdatedAt),
		"repository": f.repoObject(repo), "installation": f.installationRef(repo),
	}
	if s.Creator != nil {
		payload["sender"] = f.userObject(s.Creator)
	}
	f.emit("status", "", repo, payload)
}
