package forge

import (
	"fmt"

	"net/http"

	"github.com/gorilla/mux"
)

// Forks, as GitHub has them: POST /repos/{owner}/{repo}/forks copies a
// repository's branches and tags into one of the caller's (fork: true, its
// parent and source named by GET /repos), and a pull request's head may be
// a branch of a fork ("owner:branch" into the parent). The fork's head is
// copied into the parent as refs/pull/<N>/head when the pull request is
// opened and whenever the fork's branch moves, so that the parent holds
// every commit it is asked about (its files, its merge, a fetch of
// refs/pull/<N>/head). The App installed on the parent's owner is not
// installed on a fork: it reads the fork's head only through the parent.

func (f *Forge) routesForks(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/forks", f.repoHandler(PermRead, withBody(f.createFork))).Methods(http.MethodPost)
}

// forkRequest is the body of POST /forks.
type forkRequest struct {
	Organization      string `json:"organization"`
	Name              string `json:"name"`
	DefaultBranchOnly bool   `json:"default_branch_only"`
}

// createFork forks the repository into the caller's account (202, as
// GitHub answers: the copy is done when it answers here). An existing
// fork of the same name is answered again; a repository of that name
// that is not this one's fork is a 422.
func (f *Forge) createFork(w http.ResponseWriter, r *http.Request, rc *reqCtx, req forkRequest) {
	if rc.caller == nil || rc.caller.kind != principalUser || rc.caller.viaApp {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	if req.Organization != "" {
		validationFailed(w, "Repository", "organization", "invalid", "the local forge forks into the caller's own account only")
		return
	}
	owner := rc.caller.account
	name := req.Name
	if name == "" {
		name = rc.repo.Name
	}
	if existing, ok := f.Repo(owner.Login + "/" + name); ok {
		existing.mu.Lock()
		parent := existing.Parent
		existing.mu.Unlock()
		if parent != rc.repo {
			validationFailed(w, "Repository", "name", "already_exists", "Name already exists on this account")
			return
		}
		writeJSON(w, r, http.StatusAccepted, f.repoObjectFor(existing, rc.caller))
		return
	}
	rc.repo.mu.Lock()
	opts := RepoOptions{Description: rc.repo.Description, Private: rc.repo.Private, DefaultBranch: rc.repo.DefaultBranch}
	rc.repo.mu.Unlock()
	fork, err := f.CreateRepo(owner.Login, name, opts)
	if err != nil {
		validationFailed(w, "Repository", "name", "invalid", err.Error())
		return
	}
	specs := []string{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}
	if req.DefaultBranchOnly {
		specs = []string{"+refs/heads/" + opts.DefaultBranch + ":refs/heads/" + opts.DefaultBranch}
	}
	if _, err := f.git.run(fork.Path, nil, append([]string{"fetch", "--quiet", "--no-tags", rc.repo.Path}, specs...)...); err != nil {
		writeError(w, http.StatusInternalServerError, "fork: "+err.Error())
		return
	}
	fork.mu.Lock()
	fork.Parent = rc.repo
	fork.mu.Unlock()
	rc.repo.mu.Lock()
	rc.repo.ForkCount++
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusAccepted, f.repoObjectFor(fork, rc.caller))
}

// forkParents are a fork's parent and the root of its network (nil: not
// a fork).
func forkParents(r *Repo) (parent, source *Repo) {
	parent = parentOf(r)
	for source = parent; source != nil && parentOf(source) != nil; {
		source = parentOf(source)
	}
	return parent, source
}

// forkOf finds owner's fork of repo (the "owner" of a head "owner:branch").
func (f *Forge) forkOf(repo *Repo, owner string) *Repo {
	for _, x := range f.reposOf(owner) {
		if x != repo && parentOf(x) == repo {
			return x
		}
	}
	return nil
}

// parentOf is r's parent (nil: not a fork).
func parentOf(r *Repo) *Repo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Parent
}

// pullHeadRef is where pull request n's head is published in its base
// repository, as GitHub publishes it.
func pullHeadRef(n int) string { return fmt.Sprintf("refs/pull/%d/head", n) }

// publishPullHeadLocked sets refs/pull/<n>/head of repo to sha, copying
// the commits from headRepo's branch first when the head is a fork's.
// Caller holds repo.mu.
func (f *Forge) publishPullHeadLocked(repo *Repo, n int, headRepo *Repo, branch, sha string) error {
	if headRepo != nil && headRepo != repo {
		if _, err := f.git.run(repo.Path, nil, "fetch", "--quiet", "--no-tags", headRepo.Path,
			"+refs/heads/"+branch+":"+pullHeadRef(n)); err != nil {
			return fmt.Errorf("copy the head of #%d from %s: %w", n, headRepo.FullName(), err)
		}
	}
	_, err := f.git.run(repo.Path, nil, "update-ref", pullHeadRef(n), sha)
	return err
}
