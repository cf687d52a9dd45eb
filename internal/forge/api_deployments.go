package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// routesDeployments serves GitHub's deployments and their statuses
// (api_deployment_statuses.go): create with write access, as GitHub's
// push access, read with read access.
func (f *Forge) routesDeployments(api *mux.Router) {
	const base = "/repos/{owner}/{repo}/deployments"
	api.HandleFunc(base, f.repoHandler(PermWrite, signedIn(withBody(f.createDeployment)))).Methods(http.MethodPost)
	api.HandleFunc(base, f.repoHandler(PermRead, f.listDeployments)).Methods(http.MethodGet)
	api.HandleFunc(base+"/{id}", f.repoHandler(PermRead, onDeployment(f.getDeployment))).Methods(http.MethodGet)
	api.HandleFunc(base+"/{id}/statuses", f.repoHandler(PermWrite, signedIn(onDeployment(f.createDeploymentStatus)))).Methods(http.MethodPost)
	api.HandleFunc(base+"/{id}/statuses", f.repoHandler(PermRead, onDeployment(f.listDeploymentStatuses))).Methods(http.MethodGet)
	api.HandleFunc(base+"/{id}/statuses/{status_id}", f.repoHandler(PermRead, onDeployment(f.getDeploymentStatus))).Methods(http.MethodGet)
}

// Bounds of deployments. GitHub documents no bound on a deployment's
// payload: the forge refuses one over 64 KiB (the order of
// repository_dispatch's client_payload, which GitHub refuses as too
// large); an environment's name is at most 255 characters, as GitHub's.
const (
	maxDeploymentPayload     = 64 << 10
	maxDeploymentEnvironment = 255
)

// deploymentRequest is the body of POST .../deployments.
type deploymentRequest struct {
	Ref                   string          `json:"ref"`
	Task                  *string         `json:"task"`
	AutoMerge             *bool           `json:"auto_merge"`
	RequiredContexts      *[]string       `json:"required_contexts"`
	Payload               json.RawMessage `json:"payload"`
	Environment           *string         `json:"environment"`
	Description           *string         `json:"description"`
	TransientEnvironment  bool            `json:"transient_environment"`
	ProductionEnvironment *bool           `json:"production_environment"`
}

// deploymentPayload is the payload as GitHub keeps it: an object as
// given, a string holding a JSON object as that object, any other string
// as is, none as {}; false when it is neither an object nor a string.
func deploymentPayload(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}"), true
	}
	switch raw[0] {
	case '{':
		return raw, true
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		if t := strings.TrimSpace(s); t == "" {
			return json.RawMessage("{}"), true
		} else if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t), true
		}
		return raw, true
	}
	return nil, false
}

// createDeployment is POST .../deployments: ref names the commit (a
// branch, tag or sha). With auto_merge (GitHub's default), a branch behind
// the default branch gets the default branch merged in instead (202), or
// 409 on a conflict. required_contexts omitted: every commit status
// context of the commit must be success; [] checks none; failing ones are
// 409. Check runs are not among the contexts checked.
func (f *Forge) createDeployment(w http.ResponseWriter, r *http.Request, rc *reqCtx, req deploymentRequest) {
	repo := rc.repo
	payload, ok := deploymentPayload(req.Payload)
	env := strOr(req.Environment, "production")
	switch {
	case strings.TrimSpace(req.Ref) == "":
		validationFailed(w, "Deployment", "ref", "missing_field", "ref is required")
		return
	case !ok:
		validationFailed(w, "Deployment", "payload", "invalid", "payload must be an object or a string")
		return
	case len(payload) > maxDeploymentPayload:
		validationFailed(w, "Deployment", "payload", "custom", "payload is too large")
		return
	case strings.TrimSpace(env) == "":
		validationFailed(w, "Deployment", "environment", "missing_field", "environment is required")
		return
	case len(env) > maxDeploymentEnvironment:
		validationFailed(w, "Deployment", "environment", "custom", "environment is too long (maximum is 255 characters)")
		return
	}
	sha, found := f.peelRefToCommit(repo, req.Ref)
	if !found {
		writeError(w, http.StatusUnprocessableEntity, "No ref found for: "+req.Ref)
		return
	}
	if req.AutoMerge == nil || *req.AutoMerge {
		if done := f.autoMergeForDeployment(w, rc, req.Ref, sha); done {
			return
		}
	}
	if failing := f.unmetDeploymentContexts(repo, sha, req.RequiredContexts); len(failing) > 0 {
		writeRaw(w, http.StatusConflict, map[string]any{
			"message": "Conflict: Commit status checks failed for " + req.Ref + ".",
			"errors": []any{map[string]any{"contexts": failing, "resource": "Deployment", "field": "required_contexts",
				"code": "invalid"}},
			"documentation_url": docsURL + "/deployments/deployments#create-a-deployment", "status": "409",
		})
		return
	}
	now := f.now()
	d := &Deployment{ID: f.newID(), SHA: sha, Ref: req.Ref, Task: strOr(req.Task, "deploy"), Payload: payload,
		Environment: env, OriginalEnvironment: env, Description: strOr(req.Description, ""),
		Transient: req.TransientEnvironment, Production: env == "production",
		Creator: rc.actor(), ViaApp: viaApp(rc), CreatedAt: now, UpdatedAt: now}
	if req.ProductionEnvironment != nil {
		d.Production = *req.ProductionEnvironment
	}
	repo.mu.Lock()
	repo.Deployments = append(repo.Deployments, d)
	view := viewDeploymentLocked(d)
	repo.mu.Unlock()
	f.emitDeployment(repo, view, rc.actor())
	writeJSON(w, r, http.StatusCreated, f.deploymentObject(repo, view))
}

// strOr is *s, or def when s is nil.
func strOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// viaApp says whether the caller is the App's installation (GitHub's
// performed_via_github_app).
func viaApp(rc *reqCtx) bool {
	return rc.caller != nil && rc.caller.kind == principalInstallation
}

// autoMergeForDeployment merges the default branch into the branch ref
// when it is behind it, as GitHub's auto_merge does: 202 with GitHub's
// message once merged (no deployment is made: the caller deploys the new
// head), 409 on a conflict. A sha or a tag is deployed as it is. True
// when it answered.
func (f *Forge) autoMergeForDeployment(w http.ResponseWriter, rc *reqCtx, ref, sha string) bool {
	repo := rc.repo
	branch := strings.TrimPrefix(ref, "refs/heads/")
	if sha40Pattern.MatchString(ref) || branch == repo.DefaultBranch {
		return false
	}
	repo.mu.Lock()
	head, errHead := f.git.resolve(repo.Path, "refs/heads/"+branch)
	def, errDef := f.git.resolve(repo.Path, "refs/heads/"+repo.DefaultBranch)
	if errHead != nil || errDef != nil || head != sha || f.git.isAncestor(repo.Path, def, head) {
		repo.mu.Unlock()
		return false // not a branch, or not behind
	}
	now := f.now()
	msg := "Merge " + repo.DefaultBranch + " into " + branch + "\n"
	merged, clean, err := f.mergeCommit(repo.Path, head, def, []string{head, def}, msg, signatureOf(rc.actor(), now), webFlow(now))
	if err == nil && clean {
		err = f.git.updateRef(repo.Path, "refs/heads/"+branch, merged, head)
		if err == nil {
			repo.PushedAt, repo.UpdatedAt = now, now
		}
	}
	repo.mu.Unlock()
	switch {
	case err != nil && !errors.Is(err, errRefConflict):
		writeError(w, http.StatusInternalServerError, err.Error())
	case err != nil || !clean: // the branch moved meanwhile, or a conflict
		writeError(w, http.StatusConflict, "Conflict merging "+repo.DefaultBranch+" into "+branch+".")
	default:
		f.refsChanged(repo, rc.actor(), []RefChange{{Ref: "refs/heads/" + branch, Before: head, After: merged}})
		writeRaw(w, http.StatusAccepted, map[string]string{"message": "Auto-merged " + repo.DefaultBranch + " into " + branch + " on deployment."})
	}
	return true
}

// unmetDeploymentContexts are the contexts (and their latest state, ""
// for none) that keep sha from being deployed: each of required (nil:
// every context of sha's commit statuses) must be success.
func (f *Forge) unmetDeploymentContexts(repo *Repo, sha string, required *[]string) []map[string]string {
	repo.mu.Lock()
	latest := latestByContext(shaStatusesLocked(repo, sha))
	repo.mu.Unlock()
	state := map[string]string{}
	var contexts []string
	for _, s := range latest {
		state[s.Context] = s.State
		contexts = append(contexts, s.Context)
	}
	if required != nil {
		contexts = *required
	}
	var failing []map[string]string
	for _, c := range contexts {
		if state[c] != "success" {
			failing = append(failing, map[string]string{"context": c, "state": state[c]})
		}
	}
	return failing
}

// onDeployment is h served once {id} names a deployment of the
// repository; 404 otherwise.
func onDeployment(h func(w http.ResponseWriter, r *http.Request, rc *reqCtx, d deploymentView)) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		id, ok := rc.intVar("id")
		if !ok {
			return
		}
		rc.repo.mu.Lock()
		var view deploymentView
		found := false
		for _, d := range rc.repo.Deployments {
			if d.ID == id {
				view, found = viewDeploymentLocked(d), true
				break
			}
		}
		rc.repo.mu.Unlock()
		if !found {
			notFound(w)
			return
		}
		h(w, r, rc, view)
	}
}

func (f *Forge) getDeployment(w http.ResponseWriter, r *http.Request, rc *reqCtx, d deploymentView) {
	writeJSON(w, r, http.StatusOK, f.deploymentObject(rc.repo, d))
}

// listDeployments is GET .../deployments, newest first, filtered by sha,
// ref (as given at creation), task and environment.
func (f *Forge) listDeployments(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q := r.URL.Query()
	match := func(want, got string) bool { return want == "" || want == got }
	rc.repo.mu.Lock()
	var views []deploymentView
	for i := len(rc.repo.Deployments) - 1; i >= 0; i-- {
		d := rc.repo.Deployments[i]
		if match(q.Get("sha"), d.SHA) && match(q.Get("ref"), d.Ref) && match(q.Get("task"), d.Task) &&
			match(q.Get("environment"), d.Environment) {
			views = append(views, viewDeploymentLocked(d))
		}
	}
	rc.repo.mu.Unlock()
	out := []map[string]any{}
	for _, d := range paginate(w, r, f.BaseURL(), views) {
		out = append(out, f.deploymentObject(rc.repo, d))
	}
	writeJSON(w, r, http.StatusOK, out)
}
