package forge

import (
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesCollaborators serves a repository's collaborators and a user's
// permission on it (what approval policies read).
func (f *Forge) routesCollaborators(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/collaborators", f.repoHandler(PermRead, collaboratorReader(f.listCollaborators))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/collaborators/{user}", f.repoHandler(PermRead, collaboratorReader(f.checkCollaborator))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/collaborators/{user}/permission", f.repoHandler(PermRead, f.getCollaboratorPermission)).Methods(http.MethodGet)
}

// legacyPermission is the "permission" field of the permission endpoint:
// GitHub folds maintain into write and triage into read there; role_name
// carries the precise role.
func legacyPermission(p Permission) string {
	switch p {
	case PermAdmin:
		return "admin"
	case PermMaintain, PermWrite:
		return "write"
	case PermTriage, PermRead:
		return "read"
	}
	return "none"
}

// collaboratorUser is the user object of collaborator answers: the
// simple user plus its permissions on the repository and role name.
func (f *Forge) collaboratorUser(a *Account, perm Permission) *github.User {
	u := f.userObject(a)
	u.Permissions = map[string]bool{
		"admin": perm >= PermAdmin, "maintain": perm >= PermMaintain, "push": perm >= PermWrite,
		"triage": perm >= PermTriage, "pull": perm >= PermRead,
	}
	u.RoleName = github.String(perm.String())
	return u
}

func (f *Forge) getCollaboratorPermission(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	a, ok := f.Account(mux.Vars(r)["user"])
	if !ok || a.Type == "Organization" {
		notFound(w)
		return
	}
	perm := f.userPermission(a.Login, rc.repo)
	writeJSON(w, r, http.StatusOK, map[string]any{
		"permission": legacyPermission(perm),
		"role_name":  perm.String(),
		"user":       f.collaboratorUser(a, perm),
	})
}

// collaboratorReader admits those GitHub lets see collaborators: users
// with push access and the App's installation.
// Served under repoHandler(PermRead, ...).
func collaboratorReader(h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if rc.perm < PermWrite {
			msg := "Must have push access to view repository collaborators."
			if rc.caller != nil && rc.caller.kind == principalInstallation {
				msg = "Resource not accessible by integration"
			}
			writeError(w, http.StatusForbidden, msg)
			return
		}
		h(w, r, rc)
	}
}

// collaborators lists who has access to repo under an affiliation:
// "direct" (granted on the repository, and the owner of a user's
// repository), "outside" (direct grants to non-members of the owning
// organisation) or "all" (direct plus the organisation's members).
func (f *Forge) collaborators(repo *Repo, affiliation string) []*Account {
	logins := map[string]bool{}
	repo.mu.Lock()
	for login, p := range repo.Collaborators {
		if p > PermNone {
			logins[login] = true
		}
	}
	repo.mu.Unlock()
	f.mu.RLock()
	var members map[string]bool
	if o, ok := f.orgs[strings.ToLower(repo.Owner.Login)]; ok {
		members = make(map[string]bool, len(o.Members))
		for m := range o.Members {
			members[m] = true
		}
	}
	f.mu.RUnlock()
	switch affiliation {
	case "outside":
		for l := range logins {
			if members[l] {
				delete(logins, l)
			}
		}
	case "direct":
		if repo.Owner.Type != "Organization" {
			logins[strings.ToLower(repo.Owner.Login)] = true
		}
	default:
		if repo.Owner.Type != "Organization" {
			logins[strings.ToLower(repo.Owner.Login)] = true
		}
		for m := range members {
			logins[m] = true
		}
	}
	var out []*Account
	for l := range logins {
		if a, ok := f.Account(l); ok && a.Type != "Organization" {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Login) < strings.ToLower(out[j].Login) })
	return out
}

func (f *Forge) listCollaborators(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q := r.URL.Query()
	affiliation := q.Get("affiliation")
	switch affiliation {
	case "":
		affiliation = "all"
	case "all", "direct", "outside":
	default:
		validationFailed(w, "Collaborator", "affiliation", "invalid", "affiliation must be outside, direct or all")
		return
	}
	var want Permission = -1
	if s := q.Get("permission"); s != "" {
		p, ok := ParsePermission(s)
		if !ok || p == PermNone {
			validationFailed(w, "Collaborator", "permission", "invalid", "permission must be pull, triage, push, maintain or admin")
			return
		}
		want = p
	}
	var users []*github.User
	for _, a := range f.collaborators(rc.repo, affiliation) {
		perm := f.userPermission(a.Login, rc.repo)
		if perm == PermNone || want >= 0 && perm != want {
			continue
		}
		users = append(users, f.collaboratorUser(a, perm))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), users))
}

// checkCollaborator answers 204 when the user is a collaborator (in the
// "all" sense), 404 otherwise.
func (f *Forge) checkCollaborator(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	login := mux.Vars(r)["user"]
	for _, a := range f.collaborators(rc.repo, "all") {
		if strings.EqualFold(a.Login, login) && f.userPermission(a.Login, rc.repo) > PermNone {
			noContent(w)
			return
		}
	}
	notFound(w)
}
