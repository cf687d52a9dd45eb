package forge

import (
	"errors"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesRepos serves repositories (get, create for a user or an
// organisation, list) and users.
func (f *Forge) routesRepos(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}", f.repoHandler(PermRead, f.getRepo)).Methods(http.MethodGet)
	api.HandleFunc("/user/repos", f.createUserRepo).Methods(http.MethodPost)
	api.HandleFunc("/user/repos", f.listUserRepos).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/repos", f.createOrgRepo).Methods(http.MethodPost)
	api.HandleFunc("/orgs/{org}/repos", f.listOwnerRepos("org")).Methods(http.MethodGet)
	api.HandleFunc("/users/{org}/repos", f.listOwnerRepos("user")).Methods(http.MethodGet)
	api.HandleFunc("/user", f.getAuthenticatedUser).Methods(http.MethodGet)
	api.HandleFunc("/users/{login}", f.getUser).Methods(http.MethodGet)
}

func (f *Forge) getRepo(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	writeJSON(w, r, http.StatusOK, f.repoObjectFor(rc.repo, rc.caller))
}

// createRepoRequest is the body of the create-repository endpoints.
type createRepoRequest struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	Private       bool   `json:"private"`
	AutoInit      bool   `json:"auto_init"`
	DefaultBranch string `json:"default_branch"`
}

func (f *Forge) createUserRepo(w http.ResponseWriter, r *http.Request) {
	p := caller(r)
	if p == nil || p.kind != principalUser {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	f.createRepoFor(w, r, p.account, p)
}

func (f *Forge) createOrgRepo(w http.ResponseWriter, r *http.Request) {
	p := caller(r)
	o, ok := f.org(mux.Vars(r)["org"])
	if !ok {
		notFound(w)
		return
	}
	if p == nil {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	member := p.kind == principalUser && o.Members[strings.ToLower(p.account.Login)]
	if !member {
		writeError(w, http.StatusForbidden, "You need to be a member of "+o.Account.Login+" to create repositories in it")
		return
	}
	f.createRepoFor(w, r, o.Account, p)
}

func (f *Forge) createRepoFor(w http.ResponseWriter, r *http.Request, owner *Account, p *principal) {
	var req createRepoRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if !validRepoName(req.Name) {
		validationFailed(w, "Repository", "name", "custom", "name is invalid")
		return
	}
	repo, err := f.CreateRepo(owner.Login, req.Name, RepoOptions{Description: req.Description, Private: req.Private, DefaultBranch: req.DefaultBranch})
	if errors.Is(err, errAlreadyExists) {
		validationFailed(w, "Repository", "name", "custom", "name already exists on this account")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if owner.Type == "Organization" {
		// The creator administers what they created, as on GitHub.
		_ = f.SetCollaborator(repo.FullName(), p.account.Login, PermAdmin)
	}
	if req.AutoInit {
		files := map[string][]byte{"README.md": []byte("# " + repo.Name + "\n")}
		if _, err := f.CommitFiles(repo.FullName(), repo.DefaultBranch, files, "Initial commit", p.account); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	f.repoCreated(repo, p.account)
	writeJSON(w, r, http.StatusCreated, f.repoObjectFor(repo, p))
}

func (f *Forge) listOwnerRepos(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		login := mux.Vars(r)["org"]
		if _, ok := f.Account(login); !ok {
			notFound(w)
			return
		}
		p := caller(r)
		var out []*github.Repository
		for _, repo := range f.reposOf(login) {
			if f.permission(p, repo) >= PermRead {
				out = append(out, f.repoObjectFor(repo, p))
			}
		}
		writeJSON(w, r, http.StatusOK, paginate(w, r, f.apiBase(), out))
	}
}

// listUserRepos is GET /user/repos: the repositories the signed-in user
// owns, collaborates on or reaches as a member of their organisation,
// sorted by full name.
func (f *Forge) listUserRepos(w http.ResponseWriter, r *http.Request) {
	p := caller(r)
	if p == nil || p.kind != principalUser {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	f.mu.RLock()
	var all []*Repo
	for _, repo := range f.repos {
		all = append(all, repo)
	}
	f.mu.RUnlock()
	var mine []*Repo
	for _, repo := range all {
		if f.explicitRead(p, repo) {
			mine = append(mine, repo)
		}
	}
	sortRepos(mine)
	out := []*github.Repository{}
	for _, repo := range mine {
		if f.permission(p, repo) >= PermRead {
			out = append(out, f.repoObjectFor(repo, p))
		}
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.apiBase(), out))
}

func (f *Forge) getAuthenticatedUser(w http.ResponseWriter, r *http.Request) {
	p := caller(r)
	if p == nil || p.kind == principalApp {
		writeError(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	if p.kind == principalInstallation {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	writeJSON(w, r, http.StatusOK, f.privateUserObject(p.account))
}

func (f *Forge) getUser(w http.ResponseWriter, r *http.Request) {
	a, ok := f.Account(mux.Vars(r)["login"])
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.publicUserObject(a))
}
