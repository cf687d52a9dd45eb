package forge

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gorilla/mux"
)

// routesContents serves repository contents: GET a file (base64, wrapped
// as GitHub wraps it) or a directory listing, at ?ref= (default: the
// default branch); PUT creates or updates a file and DELETE removes one,
// each a commit on ?branch (default branch) that sends the push webhooks.
// Raw downloads (download_url) are served by routesGitHTTP.
func (f *Forge) routesContents(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/contents", f.repoHandler(PermRead, f.ctGet)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/contents/{path:.*}", f.repoHandler(PermRead, f.ctGet)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/contents/{path:.+}", f.repoHandler(PermWrite, f.ctPut)).Methods(http.MethodPut)
	api.HandleFunc("/repos/{owner}/{repo}/contents/{path:.+}", f.repoHandler(PermWrite, f.ctDelete)).Methods(http.MethodDelete)
}

// ctMaxInline is the largest file whose content the object answer
// carries; above it content is "" and encoding "none", as on GitHub.
const ctMaxInline = 1 << 20

type ctLinks struct {
	Self string  `json:"self"`
	Git  *string `json:"git"`
	HTML *string `json:"html"`
}

// ctJSON is a contents object (go-github's RepositoryContent).
type ctJSON struct {
	Type            string  `json:"type"`
	Encoding        *string `json:"encoding,omitempty"`
	Size            int64   `json:"size"`
	Name            string  `json:"name"`
	Path            string  `json:"path"`
	Content         *string `json:"content,omitempty"`
	Target          *string `json:"target,omitempty"`
	SubmoduleGitURL *string `json:"submodule_git_url,omitempty"`
	SHA             string  `json:"sha"`
	URL             string  `json:"url"`
	GitURL          *string `json:"git_url"`
	HTMLURL         *string `json:"html_url"`
	DownloadURL     *string `json:"download_url"`
	Links           ctLinks `json:"_links"`
}

// ctObject describes the entry e found at p for ref.
func (f *Forge) ctObject(repo *Repo, ref, p string, e gdTreeEntry, listing bool) ctJSON {
	api := f.gdRepoAPI(repo)
	web := f.gdRepoWeb(repo)
	self := api + "/contents/" + gdEscapePath(p) + "?ref=" + url.QueryEscape(ref)
	o := ctJSON{Name: path.Base(p), Path: p, SHA: e.SHA, URL: self}
	str := func(s string) *string { return &s }
	switch {
	case e.Type == "tree":
		o.Type = "dir"
		o.GitURL = str(f.gdObjectURL(repo, "tree", e.SHA))
		o.HTMLURL = str(web + "/tree/" + gdEscapePath(ref) + "/" + gdEscapePath(p))
	case e.Type == "commit":
		o.Type = "submodule"
		if listing {
			o.Type = "file" // as GitHub lists submodules, for compatibility
		}
		o.GitURL = str(f.gdObjectURL(repo, "tree", e.SHA))
		o.HTMLURL = str(web + "/tree/" + e.SHA)
		o.SubmoduleGitURL = str("")
	default:
		o.Type = "file"
		if e.Mode == "120000" {
			o.Type = "symlink"
		}
		o.Size = max(e.Size, 0)
		o.GitURL = str(f.gdObjectURL(repo, "blob", e.SHA))
		o.HTMLURL = str(web + "/blob/" + gdEscapePath(ref) + "/" + gdEscapePath(p))
		o.DownloadURL = str(web + "/raw/" + gdEscapePath(ref) + "/" + gdEscapePath(p))
	}
	o.Links = ctLinks{Self: self, Git: o.GitURL, HTML: o.HTMLURL}
	return o
}

// ctLookup finds path p in commit: the entry itself (a tree for p == "").
func (f *Forge) ctLookup(repo *Repo, commit, p string) (gdTreeEntry, bool) {
	if p == "" {
		tree, err := f.git.resolve(repo.Path, commit+"^{tree}")
		if err != nil {
			return gdTreeEntry{}, false
		}
		return gdTreeEntry{Mode: "040000", Type: "tree", SHA: tree, Size: -1}, true
	}
	dir, name := path.Split(p)
	treeish := commit + "^{tree}"
	if dir != "" {
		treeish = commit + ":" + strings.TrimSuffix(dir, "/")
	}
	entries, err := f.git.gdLsTree(repo.Path, treeish, false)
	if err != nil {
		return gdTreeEntry{}, false
	}
	for _, e := range entries {
		if e.Path == name {
			return e, true
		}
	}
	return gdTreeEntry{}, false
}

// ctPathVar is the {path} variable, slashes trimmed; false if it names
// nothing a tree can hold.
func ctPathVar(r *http.Request) (string, bool) {
	p := strings.Trim(mux.Vars(r)["path"], "/")
	if p == "" {
		return "", true
	}
	return p, gdValidTreePath(p)
}

func (f *Forge) ctGet(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	p, ok := ctPathVar(r)
	if !ok {
		notFound(w)
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rc.repo.DefaultBranch
		if refs, err := f.git.refs(rc.repo.Path); err == nil && len(refs) == 0 {
			writeError(w, http.StatusNotFound, "This repository is empty.")
			return
		}
	}
	commit, err := f.git.gdResolveCommit(rc.repo.Path, ref)
	if err != nil {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	e, found := f.ctLookup(rc.repo, commit, p)
	if !found {
		notFound(w)
		return
	}
	if e.Type == "tree" {
		entries, err := f.git.gdLsTree(rc.repo.Path, e.SHA, false)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out := make([]ctJSON, 0, len(entries))
		for _, c := range entries {
			out = append(out, f.ctObject(rc.repo, ref, path.Join(p, c.Path), c, true))
		}
		writeJSON(w, r, http.StatusOK, out)
		return
	}
	f.ctAnswerEntry(w, r, rc.repo, ref, p, e)
}

// ctAnswerEntry answers a non-directory entry: its contents object (with
// the file's content in base64, or its target for a symlink) or, when
// asked for the raw media type, the file's bytes.
func (f *Forge) ctAnswerEntry(w http.ResponseWriter, r *http.Request, repo *Repo, ref, p string, e gdTreeEntry) {
	o := f.ctObject(repo, ref, p, e, false)
	if e.Type != "blob" {
		writeJSON(w, r, http.StatusOK, o)
		return
	}
	data, err := f.git.readObject(repo.Path, "blob", e.SHA)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if gdWantsRaw(r) {
		ctServeRaw(w, r, e.SHA, data)
		return
	}
	switch {
	case o.Type == "symlink":
		t := string(data)
		o.Target = &t
	case len(data) > ctMaxInline:
		enc, content := "none", ""
		o.Encoding, o.Content = &enc, &content
	default:
		enc, content := "base64", gdBase64(data)
		o.Encoding, o.Content = &enc, &content
	}
	writeJSON(w, r, http.StatusOK, o)
}

// ctServeRaw answers a file's bytes, with its blob id as ETag.
func ctServeRaw(w http.ResponseWriter, r *http.Request, sha string, data []byte) {
	etag := `"` + sha + `"`
	w.Header().Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ct := "text/plain; charset=utf-8"
	if gdWantsRaw(r) {
		ct = "application/vnd.github.raw"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(data)
}

// ctRaw serves download_url: /{owner}/{repo}/raw/{ref}/{path}, the ref
// being the shortest prefix that names a commit holding the path (refs
// may contain slashes). Credentials as for git; 404 for what the caller
// may not read.
func (f *Forge) ctRaw(w http.ResponseWriter, r *http.Request) {
	p, err := f.authenticate(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Bad credentials", http.StatusUnauthorized)
		return
	}
	v := mux.Vars(r)
	repo, ok := f.Repo(v["owner"] + "/" + v["repo"])
	if !ok || f.permission(p, repo) < PermRead {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	rest := v["rest"]
	for i := 0; i < len(rest); i++ {
		if rest[i] != '/' {
			continue
		}
		ref, fp := rest[:i], strings.Trim(rest[i+1:], "/")
		if !gdValidTreePath(fp) {
			continue
		}
		commit, err := f.git.gdResolveCommit(repo.Path, ref)
		if err != nil {
			continue
		}
		e, found := f.ctLookup(repo, commit, fp)
		if !found || e.Type != "blob" {
			continue
		}
		data, err := f.git.readObject(repo.Path, "blob", e.SHA)
		if err != nil {
			break
		}
		ctServeRaw(w, r, e.SHA, data)
		return
	}
	http.Error(w, "404: Not Found", http.StatusNotFound)
}

// ---- create, update and delete a file ----

type ctFileRequest struct {
	Message   *string         `json:"message"`
	Content   *string         `json:"content"`
	SHA       string          `json:"sha"`
	Branch    string          `json:"branch"`
	Author    *gdActorRequest `json:"author"`
	Committer *gdActorRequest `json:"committer"`
}

type ctFileResponse struct {
	Content *ctJSON      `json:"content"`
	Commit  gdCommitJSON `json:"commit"`
}

func (f *Forge) ctPut(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.ctWrite(w, r, rc, false)
}

func (f *Forge) ctDelete(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	f.ctWrite(w, r, rc, true)
}

var errCtAnswered = errors.New("answered")

// ctWrite commits one file change on a branch, compare-and-swap on the
// branch head under the repository's lock; sha must name the file's
// current blob to update or delete it (409 when it does not).
func (f *Forge) ctWrite(w http.ResponseWriter, r *http.Request, rc *reqCtx, del bool) {
	p, ok := ctPathVar(r)
	if !ok || p == "" {
		notFound(w)
		return
	}
	req, ok := decode[ctFileRequest](rc)
	if !ok {
		return
	}
	var missing []string
	if req.Message == nil {
		missing = append(missing, `"message"`)
	}
	if !del && req.Content == nil {
		missing = append(missing, `"content"`)
	}
	if del && req.SHA == "" {
		missing = append(missing, `"sha"`)
	}
	if len(missing) > 0 {
		verb := " wasn't supplied."
		if len(missing) > 1 {
			verb = " weren't supplied."
		}
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n"+strings.Join(missing, ", ")+verb)
		return
	}
	var data []byte
	if !del {
		var err error
		if data, err = base64.StdEncoding.DecodeString(*req.Content); err != nil {
			writeError(w, http.StatusUnprocessableEntity, "content is not valid Base64")
			return
		}
	}
	branch := req.Branch
	if branch == "" {
		branch = rc.repo.DefaultBranch
	}
	branch = strings.TrimPrefix(branch, "refs/heads/")
	ref := "refs/heads/" + branch
	if !gdValidRefName(ref) {
		writeError(w, http.StatusUnprocessableEntity, "Invalid branch name")
		return
	}
	def := gdIdentityOf(rc.actor(), f.now())
	author, ok1 := f.gdSignatureFrom(req.Author, def)
	committerDef := def
	if req.Author != nil {
		committerDef = author
	}
	committer, ok2 := f.gdSignatureFrom(req.Committer, committerDef)
	if !ok1 || !ok2 {
		validationFailed(w, "Commit", "date", "invalid", "date is not a valid ISO 8601 timestamp")
		return
	}

	fail := func(status int, msg string) error { writeError(w, status, msg); return errCtAnswered }
	var created bool
	var before, commitSHA, blobSHA string
	err := func() error {
		rc.repo.mu.Lock()
		defer rc.repo.mu.Unlock()
		head, found, err := f.git.gdRefValue(rc.repo.Path, ref)
		if err != nil {
			return err
		}
		if !found {
			refs, err := f.git.refs(rc.repo.Path)
			if err != nil {
				return err
			}
			if len(refs) > 0 || branch != rc.repo.DefaultBranch || del {
				return fail(http.StatusNotFound, "Branch "+branch+" not found")
			}
		}
		b := &gdTreeBuilder{g: f.git, path: rc.repo.Path}
		base := ""
		if found {
			if base, err = f.git.resolve(rc.repo.Path, head+"^{tree}"); err != nil {
				return err
			}
		}
		cur, exists := gdTreeEntry{}, false
		if found {
			cur, exists = f.ctLookup(rc.repo, head, p)
		}
		switch {
		case exists && cur.Type != "blob":
			return fail(http.StatusUnprocessableEntity, p+" is a directory")
		case del && !exists:
			return fail(http.StatusNotFound, "Not Found")
		case exists && req.SHA == "":
			return fail(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
		case exists && !strings.EqualFold(req.SHA, cur.SHA):
			return fail(http.StatusConflict, p+" does not match "+req.SHA)
		}
		created = !exists
		root, err := b.load(base)
		if err != nil {
			return err
		}
		var ne *gdTreeNodeEntry
		if !del {
			if blobSHA, err = f.git.writeObject(rc.repo.Path, "blob", data); err != nil {
				return err
			}
			mode := "100644"
			if exists {
				mode = cur.Mode
			}
			ne = &gdTreeNodeEntry{mode: mode, typ: "blob", sha: blobSHA}
		}
		if err := b.set(root, p, ne); err != nil {
			return err
		}
		tree, err := b.write(root, true)
		if err != nil {
			return err
		}
		before = zeroSHA
		var parents []string
		if found {
			before, parents = head, []string{head}
		}
		raw := "tree " + tree + "\n"
		for _, pa := range parents {
			raw += "parent " + pa + "\n"
		}
		raw += "author " + gdFormatSignature(author) + "\ncommitter " + gdFormatSignature(committer) + "\n\n" + *req.Message
		if commitSHA, err = f.git.writeObject(rc.repo.Path, "commit", []byte(raw)); err != nil {
			return err
		}
		if err := f.git.updateRef(rc.repo.Path, ref, commitSHA, before); err != nil {
			if errors.Is(err, errRefConflict) {
				return fail(http.StatusConflict, "Reference update failed: "+branch+" moved")
			}
			return err
		}
		rc.repo.PushedAt = f.now()
		return nil
	}()
	if errors.Is(err, errCtAnswered) {
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	f.refsChanged(rc.repo, rc.actor(), []RefChange{{Ref: ref, Before: before, After: commitSHA}})
	c, err := f.git.gdReadCommit(rc.repo.Path, commitSHA)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := ctFileResponse{Commit: f.gdCommitOf(rc.repo, c)}
	status := http.StatusOK
	if !del {
		o := f.ctObject(rc.repo, branch, p, gdTreeEntry{Mode: "100644", Type: "blob", SHA: blobSHA, Size: int64(len(data))}, true)
		out.Content = &o
		if created {
			status = http.StatusCreated
		}
	}
	writeJSON(w, r, status, out)
}
