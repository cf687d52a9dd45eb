package forge

import (
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// Branches: GET /repos/{owner}/{repo}/branches[/{branch}], GitHub's shapes
// (go-github Repositories.ListBranches and GetBranch). A branch is
// protected when it has rules (protection.go).

type gdRepoCommitInnerJSON struct {
	Author       gdActorJSON        `json:"author"`
	Committer    gdActorJSON        `json:"committer"`
	Message      string             `json:"message"`
	Tree         gdSHAURL           `json:"tree"`
	URL          string             `json:"url"`
	CommentCount int                `json:"comment_count"`
	Verification gdVerificationJSON `json:"verification"`
}

// gdRepoCommitOf is the "commit" object of the repository commits API
// (go-github's RepositoryCommit).
type gdRepoCommitJSON struct {
	SHA         string                `json:"sha"`
	NodeID      string                `json:"node_id"`
	Commit      gdRepoCommitInnerJSON `json:"commit"`
	URL         string                `json:"url"`
	HTMLURL     string                `json:"html_url"`
	CommentsURL string                `json:"comments_url"`
	Author      *github.User          `json:"author"`
	Committer   *github.User          `json:"committer"`
	Parents     []gdParentJSON        `json:"parents"`
}

type gdStatusChecksJSON struct {
	EnforcementLevel string   `json:"enforcement_level"`
	Contexts         []string `json:"contexts"`
	Checks           []any    `json:"checks"`
}

type gdProtectionJSON struct {
	Enabled              bool               `json:"enabled"`
	RequiredStatusChecks gdStatusChecksJSON `json:"required_status_checks"`
}

type gdBranchJSON struct {
	Name          string            `json:"name"`
	Commit        gdRepoCommitJSON  `json:"commit"`
	Links         map[string]string `json:"_links"`
	Protected     bool              `json:"protected"`
	Protection    gdProtectionJSON  `json:"protection"`
	ProtectionURL string            `json:"protection_url"`
}

type gdBranchShortJSON struct {
	Name      string   `json:"name"`
	Commit    gdSHAURL `json:"commit"`
	Protected bool     `json:"protected"`
}

// gdRepoCommitOf builds the repository commit object of c; authors are
// linked to the forge's accounts by email, as GitHub links them.
func (f *Forge) gdRepoCommitOf(repo *Repo, c *gdCommit) gdRepoCommitJSON {
	api := f.gdRepoAPI(repo)
	gc := f.gdCommitOf(repo, c)
	out := gdRepoCommitJSON{
		SHA: c.SHA, NodeID: gc.NodeID,
		Commit: gdRepoCommitInnerJSON{Author: gc.Author, Committer: gc.Committer, Message: c.Message, Tree: gc.Tree,
			URL: gc.URL, Verification: gc.Verification},
		URL: api + "/commits/" + c.SHA, HTMLURL: gc.HTMLURL, CommentsURL: api + "/commits/" + c.SHA + "/comments",
		Parents: gc.Parents,
	}
	if a := f.gdAccountByEmail(c.Author.Email); a != nil {
		out.Author = f.userObject(a)
	}
	if a := f.gdAccountByEmail(c.Committer.Email); a != nil {
		out.Committer = f.userObject(a)
	}
	return out
}

func (f *Forge) gdGetBranch(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	name := mux.Vars(r)["branch"]
	sha, found, err := f.git.gdRefValue(rc.repo.Path, "refs/heads/"+name)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !found {
		writeError(w, http.StatusNotFound, "Branch not found")
		return
	}
	c, err := f.git.gdReadCommit(rc.repo.Path, sha)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	api := f.gdRepoAPI(rc.repo) + "/branches/" + gdEscapePath(name)
	rc.repo.mu.Lock()
	p := copyProtection(rc.repo.Protections[name])
	rc.repo.mu.Unlock()
	checks := gdStatusChecksJSON{EnforcementLevel: "off", Contexts: []string{}, Checks: []any{}}
	if p != nil && len(p.Checks) > 0 {
		checks.EnforcementLevel = "non_admins"
		if p.EnforceAdmins {
			checks.EnforcementLevel = "everyone"
		}
		for _, c := range f.requiredChecksJSON(rc.repo, name, p).Checks {
			checks.Contexts = append(checks.Contexts, c.Context)
			checks.Checks = append(checks.Checks, c)
		}
	}
	writeJSON(w, r, http.StatusOK, gdBranchJSON{
		Name: name, Commit: f.gdRepoCommitOf(rc.repo, c),
		Links:         map[string]string{"self": api, "html": f.gdRepoWeb(rc.repo) + "/tree/" + gdEscapePath(name)},
		Protected:     p != nil,
		Protection:    gdProtectionJSON{Enabled: p != nil, RequiredStatusChecks: checks},
		ProtectionURL: api + "/protection",
	})
}

func (f *Forge) gdListBranches(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	refs, err := f.git.refs(rc.repo.Path)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	var names []string
	for name := range refs {
		if strings.HasPrefix(name, "refs/heads/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	rc.repo.mu.Lock()
	protected := map[string]bool{}
	for b := range rc.repo.Protections {
		protected[b] = true
	}
	rc.repo.mu.Unlock()
	out := make([]gdBranchShortJSON, 0, len(names))
	for _, n := range names {
		b := strings.TrimPrefix(n, "refs/heads/")
		out = append(out, gdBranchShortJSON{Name: b, Protected: protected[b],
			Commit: gdSHAURL{SHA: refs[n], URL: f.gdRepoAPI(rc.repo) + "/commits/" + refs[n]}})
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.apiBase(), out))
}
