package forge

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"
)

// Branch protection's REST API (protection.go): read, set and remove a
// branch's protection, and update its required status checks. Only a
// repository's administrators may (an installation token never: the App
// does not ask for the administration permission). Registered before the
// branch routes, whose {branch} would take ".../protection" as a name.
func (f *Forge) routesBranchProtection(api *mux.Router) {
	const p = "/repos/{owner}/{repo}/branches/{branch:.+}/protection"
	api.HandleFunc(p, f.repoHandler(PermAdmin, f.getProtection)).Methods(http.MethodGet)
	api.HandleFunc(p, f.repoHandler(PermAdmin, withBody(f.putProtection))).Methods(http.MethodPut)
	api.HandleFunc(p, f.repoHandler(PermAdmin, f.deleteProtection)).Methods(http.MethodDelete)
	api.HandleFunc(p+"/required_status_checks", f.repoHandler(PermAdmin, withBody(f.patchRequiredChecks))).Methods(http.MethodPatch)
}

// requiredChecksBody is required_status_checks as PUT and PATCH send it.
type requiredChecksBody struct {
	Strict   *bool    `json:"strict"`
	Contexts []string `json:"contexts"`
	Checks   []struct {
		Context string `json:"context"`
		AppID   *int64 `json:"app_id"`
	} `json:"checks"`
}

// checks are the body's required checks: checks, else contexts (any App).
func (b requiredChecksBody) checks() ([]RequiredCheck, bool) {
	var out []RequiredCheck
	for _, c := range b.Checks {
		if c.Context == "" {
			return nil, false
		}
		rc := RequiredCheck{Context: c.Context}
		if c.AppID != nil && *c.AppID > 0 {
			rc.AppID = *c.AppID
		}
		out = append(out, rc)
	}
	if len(b.Checks) == 0 {
		for _, c := range b.Contexts {
			if c == "" {
				return nil, false
			}
			out = append(out, RequiredCheck{Context: c})
		}
	}
	return out, true
}

// protectionBranch is the route's branch when it exists (404 answered
// otherwise).
func (f *Forge) protectionBranch(w http.ResponseWriter, r *http.Request, rc *reqCtx) (string, bool) {
	name := mux.Vars(r)["branch"]
	_, found, err := f.git.gdRefValue(rc.repo.Path, "refs/heads/"+name)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return "", false
	}
	if !found {
		writeError(w, http.StatusNotFound, "Branch not found")
		return "", false
	}
	return name, true
}

func (f *Forge) getProtection(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	branch, ok := f.protectionBranch(w, r, rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	p := copyProtection(rc.repo.Protections[branch])
	rc.repo.mu.Unlock()
	if p == nil {
		writeError(w, http.StatusNotFound, "Branch not protected")
		return
	}
	writeJSON(w, r, http.StatusOK, f.protectionJSON(rc.repo, branch, p))
}

func (f *Forge) putProtection(w http.ResponseWriter, r *http.Request, rc *reqCtx, body map[string]json.RawMessage) {
	branch, ok := f.protectionBranch(w, r, rc)
	if !ok {
		return
	}
	for _, k := range []string{"required_status_checks", "enforce_admins", "required_pull_request_reviews", "restrictions"} {
		if _, ok := body[k]; !ok {
			validationFailed(w, "Branch", k, "missing_field", k+" is required (null to leave it off)")
			return
		}
	}
	for _, k := range []string{"required_pull_request_reviews", "restrictions"} {
		if string(body[k]) != "null" {
			validationFailed(w, "Branch", k, "unprocessable",
				"the local forge models required status checks and enforce_admins only; "+k+" must be null")
			return
		}
	}
	p := &BranchProtection{}
	if raw := body["required_status_checks"]; string(raw) != "null" {
		var rsc requiredChecksBody
		if err := json.Unmarshal(raw, &rsc); err != nil || rsc.Strict == nil {
			validationFailed(w, "Branch", "required_status_checks", "invalid", "required_status_checks needs strict and checks (or contexts)")
			return
		}
		checks, ok := rsc.checks()
		if !ok {
			validationFailed(w, "Branch", "required_status_checks", "invalid", "a required check needs a context")
			return
		}
		p.Strict, p.Checks = *rsc.Strict, checks
	}
	if raw := body["enforce_admins"]; string(raw) != "null" {
		if err := json.Unmarshal(raw, &p.EnforceAdmins); err != nil {
			validationFailed(w, "Branch", "enforce_admins", "invalid", "enforce_admins is a boolean or null")
			return
		}
	}
	rc.repo.mu.Lock()
	setProtectionLocked(rc.repo, branch, p)
	p = copyProtection(rc.repo.Protections[branch])
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.protectionJSON(rc.repo, branch, p))
}

func (f *Forge) deleteProtection(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	branch, ok := f.protectionBranch(w, r, rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	setProtectionLocked(rc.repo, branch, nil)
	rc.repo.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// patchRequiredChecks updates the required status checks of a branch
// that has them (404 otherwise, as GitHub answers).
func (f *Forge) patchRequiredChecks(w http.ResponseWriter, r *http.Request, rc *reqCtx, body requiredChecksBody) {
	branch, ok := f.protectionBranch(w, r, rc)
	if !ok {
		return
	}
	checks, ok := body.checks()
	if !ok {
		validationFailed(w, "Branch", "checks", "invalid", "a required check needs a context")
		return
	}
	rc.repo.mu.Lock()
	cur := copyProtection(rc.repo.Protections[branch])
	if cur == nil || len(cur.Checks) == 0 {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusNotFound, "Required status checks not enabled")
		return
	}
	if body.Strict != nil {
		cur.Strict = *body.Strict
	}
	if body.Checks != nil || body.Contexts != nil {
		cur.Checks = checks
	}
	setProtectionLocked(rc.repo, branch, cur)
	cur = copyProtection(rc.repo.Protections[branch])
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusOK, f.requiredChecksJSON(rc.repo, branch, cur))
}

// The protection's JSON, as GitHub writes it.

type protectionEnabledJSON struct {
	Enabled bool `json:"enabled"`
}

type protectionURLEnabledJSON struct {
	URL     string `json:"url"`
	Enabled bool   `json:"enabled"`
}

type requiredCheckJSON struct {
	Context string `json:"context"`
	AppID   *int64 `json:"app_id"`
}

type requiredChecksJSON struct {
	URL         string              `json:"url"`
	Strict      bool                `json:"strict"`
	Contexts    []string            `json:"contexts"`
	Checks      []requiredCheckJSON `json:"checks"`
	ContextsURL string              `json:"contexts_url"`
}

type protectionJSON struct {
	URL                            string                   `json:"url"`
	RequiredStatusChecks           *requiredChecksJSON      `json:"required_status_checks,omitempty"`
	EnforceAdmins                  protectionURLEnabledJSON `json:"enforce_admins"`
	RequiredSignatures             protectionURLEnabledJSON `json:"required_signatures"`
	RequiredLinearHistory          protectionEnabledJSON    `json:"required_linear_history"`
	AllowForcePushes               protectionEnabledJSON    `json:"allow_force_pushes"`
	AllowDeletions                 protectionEnabledJSON    `json:"allow_deletions"`
	BlockCreations                 protectionEnabledJSON    `json:"block_creations"`
	RequiredConversationResolution protectionEnabledJSON    `json:"required_conversation_resolution"`
	LockBranch                     protectionEnabledJSON    `json:"lock_branch"`
	AllowForkSyncing               protectionEnabledJSON    `json:"allow_fork_syncing"`
}

func (f *Forge) protectionURL(repo *Repo, branch string) string {
	return f.gdRepoAPI(repo) + "/branches/" + gdEscapePath(branch) + "/protection"
}

func (f *Forge) requiredChecksJSON(repo *Repo, branch string, p *BranchProtection) *requiredChecksJSON {
	u := f.protectionURL(repo, branch) + "/required_status_checks"
	out := &requiredChecksJSON{URL: u, Strict: p.Strict, Contexts: []string{}, Checks: []requiredCheckJSON{}, ContextsURL: u + "/contexts"}
	for _, c := range p.Checks {
		j := requiredCheckJSON{Context: c.Context}
		if c.AppID != 0 {
			id := c.AppID
			j.AppID = &id
		}
		out.Contexts = append(out.Contexts, c.Context)
		out.Checks = append(out.Checks, j)
	}
	return out
}

func (f *Forge) protectionJSON(repo *Repo, branch string, p *BranchProtection) protectionJSON {
	u := f.protectionURL(repo, branch)
	out := protectionJSON{URL: u,
		EnforceAdmins:      protectionURLEnabledJSON{URL: u + "/enforce_admins", Enabled: p.EnforceAdmins},
		RequiredSignatures: protectionURLEnabledJSON{URL: u + "/required_signatures"}}
	if len(p.Checks) > 0 {
		out.RequiredStatusChecks = f.requiredChecksJSON(repo, branch, p)
	}
	return out
}
