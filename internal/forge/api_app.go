package forge

import (
	"net/http"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// installationTokenTTL is how long installation tokens live (GitHub: 1h).
const installationTokenTTL = time.Hour

// routesApp serves the GitHub App endpoints: the app itself, its
// installations and their access tokens.
func (f *Forge) routesApp(api *mux.Router) {
	api.HandleFunc("/app", f.appOnly(f.getApp)).Methods(http.MethodGet)
	api.HandleFunc("/app/installations", f.appOnly(f.listInstallations)).Methods(http.MethodGet)
	api.HandleFunc("/app/installations/{id:[0-9]+}", f.appOnly(f.getInstallation)).Methods(http.MethodGet)
	api.HandleFunc("/app/installations/{id:[0-9]+}/access_tokens", f.appOnly(f.createAccessToken)).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/installation", f.appOnly(f.getRepoInstallation)).Methods(http.MethodGet)
	api.HandleFunc("/installation/repositories", f.listInstallationRepos).Methods(http.MethodGet)
}

// appOnly requires the App's JWT, as GitHub does for /app endpoints.
func (f *Forge) appOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := caller(r)
		if p == nil || p.kind != principalApp {
			writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
			return
		}
		h(w, r)
	}
}

func (f *Forge) getApp(w http.ResponseWriter, r *http.Request) {
	app := f.appInfo()
	writeJSON(w, r, http.StatusOK, &github.App{
		ID: github.Int64(app.ID), Slug: github.String(app.Slug), Name: github.String(app.Name),
		NodeID: github.String(nodeID("App", app.ID)), Owner: f.userObject(app.Owner),
		Description: github.String("porchbot on the local forge"),
		ExternalURL: github.String(f.webBase()), HTMLURL: github.String(f.webBase() + "/apps/" + app.Slug),
		Permissions: appPermissions(), Events: f.appEvents(),
		CreatedAt: ts(time.Unix(1700000000, 0).UTC()), UpdatedAt: ts(time.Unix(1700000000, 0).UTC()),
	})
}

func (f *Forge) listInstallations(w http.ResponseWriter, r *http.Request) {
	var out []*github.Installation
	for _, inst := range f.installationsList() {
		out = append(out, f.installationObject(inst))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.apiBase(), out))
}

func (f *Forge) installationByVar(w http.ResponseWriter, r *http.Request) (*Installation, bool) {
	id, ok := intVar(w, r, "id")
	if !ok {
		return nil, false
	}
	f.mu.RLock()
	inst, found := f.installations[id]
	f.mu.RUnlock()
	if !found {
		notFound(w)
		return nil, false
	}
	return inst, true
}

func (f *Forge) getInstallation(w http.ResponseWriter, r *http.Request) {
	if inst, ok := f.installationByVar(w, r); ok {
		writeJSON(w, r, http.StatusOK, f.installationObject(inst))
	}
}

func (f *Forge) createAccessToken(w http.ResponseWriter, r *http.Request) {
	inst, ok := f.installationByVar(w, r)
	if !ok {
		return
	}
	tok, exp, err := f.InstallationToken(inst.ID, f.tokenTTL())
	if err != nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusCreated, &github.InstallationToken{
		Token: github.String(tok), ExpiresAt: ts(exp), Permissions: appPermissions(),
	})
}

// SetInstallationTokenTTL changes the lifetime of new installation tokens
// (tests use a short one to prove refresh at expiry).
func (f *Forge) SetInstallationTokenTTL(d time.Duration) {
	f.mu.Lock()
	f.tokenLifetime = d
	f.mu.Unlock()
}

func (f *Forge) tokenTTL() time.Duration {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.tokenLifetime > 0 {
		return f.tokenLifetime
	}
	return installationTokenTTL
}

func (f *Forge) getRepoInstallation(w http.ResponseWriter, r *http.Request) {
	v := mux.Vars(r)
	repo, ok := f.Repo(v["owner"] + "/" + v["repo"])
	if !ok {
		notFound(w)
		return
	}
	inst := f.installationFor(repo)
	if inst == nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.installationObject(inst))
}

// listInstallationRepos is GET /installation/repositories for an
// installation token.
func (f *Forge) listInstallationRepos(w http.ResponseWriter, r *http.Request) {
	p := caller(r)
	if p == nil || p.kind != principalInstallation {
		writeError(w, http.StatusForbidden, "This endpoint requires an installation token")
		return
	}
	var repos []*github.Repository
	for _, repo := range f.reposOf(p.installation.Account.Login) {
		repos = append(repos, f.repoObject(repo))
	}
	page := paginate(w, r, f.apiBase(), repos)
	writeJSON(w, r, http.StatusOK, &github.ListRepositories{TotalCount: github.Int(len(repos)), Repositories: page})
}
