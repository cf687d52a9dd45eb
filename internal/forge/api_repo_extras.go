package forge

import (
	"encoding/base64"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// routesRepoExtras serves the small reads clients of GitHub commonly
// make: a repository's tags, its README, and the caller's rate limit.
func (f *Forge) routesRepoExtras(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/tags", f.repoHandler(PermRead, f.listTags)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/readme", f.repoHandler(PermRead, f.getReadme)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/readme/{dir:.+}", f.repoHandler(PermRead, f.getReadme)).Methods(http.MethodGet)
	api.HandleFunc("/rate_limit", f.getRateLimit).Methods(http.MethodGet)
}

type tagJSON struct {
	Name       string   `json:"name"`
	Commit     gdSHAURL `json:"commit"`
	ZipballURL string   `json:"zipball_url"`
	TarballURL string   `json:"tarball_url"`
	NodeID     string   `json:"node_id"`
}

// listTags lists the tags (each peeled to its commit), newest version
// first as GitHub orders them, paginated.
func (f *Forge) listTags(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	out, err := f.git.run(rc.repo.Path, nil, "for-each-ref", "--sort=-v:refname", "--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)", "refs/tags/")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	api, _ := f.repoURLs(rc.repo)
	tags := []tagJSON{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "\x00")
		if len(parts) != 3 {
			continue
		}
		name, sha := parts[0], parts[1]
		if parts[2] != "" { // an annotated tag: its commit
			sha = parts[2]
		}
		tags = append(tags, tagJSON{Name: name, Commit: gdSHAURL{SHA: sha, URL: api + "/commits/" + sha},
			ZipballURL: api + "/zipball/refs/tags/" + gdEscapePath(name), TarballURL: api + "/tarball/refs/tags/" + gdEscapePath(name),
			NodeID: base64.StdEncoding.EncodeToString([]byte("03:Ref" + strconv.FormatInt(rc.repo.ID, 10) + ":refs/tags/" + name))})
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), tags))
}

// readmeDirs are where GitHub looks for a repository's README, in order.
var readmeDirs = []string{".github", "", "docs"}

// getReadme answers the README of the repository (or of {dir}) at ?ref
// (the default branch): the first file named README, case-insensitive,
// with any extension; 404 when there is none.
func (f *Forge) getReadme(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rc.repo.DefaultBranch
	}
	commit, err := f.git.gdResolveCommit(rc.repo.Path, ref)
	if err != nil {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	dirs := readmeDirs
	if d, given := mux.Vars(r)["dir"]; given {
		d = strings.Trim(d, "/")
		if !gdValidTreePath(d) {
			notFound(w)
			return
		}
		dirs = []string{d}
	}
	for _, dir := range dirs {
		treeish := commit + "^{tree}"
		if dir != "" {
			treeish = commit + ":" + dir
		}
		entries, err := f.git.gdLsTree(rc.repo.Path, treeish, false)
		if err != nil {
			continue
		}
		for _, e := range entries {
			base := strings.ToLower(e.Path)
			if e.Type == "blob" && (base == "readme" || strings.HasPrefix(base, "readme.")) {
				f.ctAnswerEntry(w, r, rc.repo, ref, path.Join(dir, e.Path), e)
				return
			}
		}
	}
	notFound(w)
}

// getRateLimit answers the caller's budgets (it costs no call, as on
// GitHub). The forge keeps one hourly core budget; the others are shown
// at their GitHub limits, unspent.
func (f *Forge) getRateLimit(w http.ResponseWriter, r *http.Request) {
	now := f.clockNow()
	win := f.rate.take(caller(r), now, false)
	rate := func(limit, used int, reset int64, resource string) map[string]any {
		return map[string]any{"limit": limit, "used": used, "remaining": max(limit-used, 0), "reset": reset, "resource": resource}
	}
	core := rate(win.limit, win.used, win.reset.Unix(), "core")
	minute := now.Add(60e9).Unix()
	hour := now.Add(3600e9).Unix()
	writeJSON(w, r, http.StatusOK, map[string]any{
		"resources": map[string]any{
			"core":                 core,
			"search":               rate(30, 0, minute, "search"),
			"code_search":          rate(10, 0, minute, "code_search"),
			"graphql":              rate(win.limit, 0, hour, "graphql"),
			"integration_manifest": rate(5000, 0, hour, "integration_manifest"),
		},
		"rate": core,
	})
}
