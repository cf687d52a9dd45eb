package forge

import (
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesUserInstallations serves what a user-to-server token (the App's
// OAuth web flow, web_oauth.go) may ask about the App's installations: the
// installations its user can reach, and the repositories of one of them the
// user has explicit permission on, as GitHub answers them.
func (f *Forge) routesUserInstallations(api *mux.Router) {
	api.HandleFunc("/user/installations", f.userOnly(f.listUserInstallations)).Methods(http.MethodGet)
	api.HandleFunc("/user/installations/{id:[0-9]+}/repositories", f.userOnly(f.listUserInstallationRepos)).Methods(http.MethodGet)
}

// userOnly requires a user-to-server token, as GitHub does for these
// endpoints (a personal token is refused with 403).
func (f *Forge) userOnly(h func(http.ResponseWriter, *http.Request, *principal)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := caller(r)
		if p == nil {
			writeError(w, http.StatusUnauthorized, "Requires authentication")
			return
		}
		if p.kind != principalUser || !p.viaApp {
			writeError(w, http.StatusForbidden, "You must authenticate with an access token authorized to a GitHub App in order to list installations")
			return
		}
		h(w, r, p)
	}
}

// explicitRead: has the user an explicit permission (owner, collaborator,
// organisation member) of at least read on r? A public repository alone
// does not count, as on GitHub.
func (f *Forge) explicitRead(p *principal, r *Repo) bool {
	if r.Owner.ID == p.account.ID {
		return true
	}
	login := strings.ToLower(p.account.Login)
	if o, ok := f.org(r.Owner.Login); ok && o.Members[login] {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Collaborators[login] >= PermRead
}

// userReposOf are the repositories of inst the user reaches explicitly.
func (f *Forge) userReposOf(p *principal, inst *Installation) []*Repo {
	var out []*Repo
	for _, r := range f.reposOf(inst.Account.Login) {
		if f.explicitRead(p, r) {
			out = append(out, r)
		}
	}
	return out
}

func (f *Forge) listUserInstallations(w http.ResponseWriter, r *http.Request, p *principal) {
	var out []*github.Installation
	for _, inst := range f.installationsList() {
		if len(f.userReposOf(p, inst)) > 0 {
			out = append(out, f.installationObject(inst))
		}
	}
	page := paginate(w, r, f.apiBase(), out)
	writeJSON(w, r, http.StatusOK, map[string]any{"total_count": len(out), "installations": nonNil(page)})
}

func (f *Forge) listUserInstallationRepos(w http.ResponseWriter, r *http.Request, p *principal) {
	inst, ok := f.installationByVar(w, r)
	if !ok {
		return
	}
	repos := f.userReposOf(p, inst)
	if len(repos) == 0 {
		notFound(w) // an installation the user cannot reach does not exist for them
		return
	}
	objs := make([]*github.Repository, 0, len(repos))
	for _, repo := range repos {
		objs = append(objs, f.repoObjectFor(repo, p))
	}
	page := paginate(w, r, f.apiBase(), objs)
	writeJSON(w, r, http.StatusOK, map[string]any{"total_count": len(objs), "repository_selection": "all", "repositories": nonNil(page)})
}

// nonNil is s, or an empty slice (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
