package forge

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gorilla/mux"
)

// routesGitData serves git data (refs, commits, trees, blobs, annotated
// tags) and branches, with GitHub's shapes. Reads need read access,
// writes write access. Ref changes are compare-and-swap under the
// repository's lock and send the push, create and delete webhooks a push
// would.
func (f *Forge) routesGitData(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/git/ref/{ref:.+}", f.repoHandler(PermRead, f.gdGetRef)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/matching-refs/{ref:.*}", f.repoHandler(PermRead, f.gdMatchingRefs)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/refs", f.repoHandler(PermRead, f.gdListRefs)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/refs/{ref:.+}", f.repoHandler(PermRead, f.gdGetRefLegacy)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/refs", f.repoHandler(PermWrite, withBody(f.gdCreateRef))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/git/refs/{ref:.+}", f.repoHandler(PermWrite, withBody(f.gdUpdateRef))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/git/refs/{ref:.+}", f.repoHandler(PermWrite, f.gdDeleteRef)).Methods(http.MethodDelete)

	api.HandleFunc("/repos/{owner}/{repo}/git/commits/{sha}", f.repoHandler(PermRead, f.gdGetCommit)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/commits", f.repoHandler(PermWrite, withBody(f.gdCreateCommit))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/git/trees/{sha:.+}", f.repoHandler(PermRead, f.gdGetTree)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/trees", f.repoHandler(PermWrite, withBody(f.gdCreateTree))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/git/blobs/{sha}", f.repoHandler(PermRead, f.gdGetBlob)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/blobs", f.repoHandler(PermWrite, withBody(f.gdCreateBlob))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/git/tags/{sha}", f.repoHandler(PermRead, f.gdGetTag)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/git/tags", f.repoHandler(PermWrite, withBody(f.gdCreateTag))).Methods(http.MethodPost)

	api.HandleFunc("/repos/{owner}/{repo}/branches", f.repoHandler(PermRead, f.gdListBranches)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/branches/{branch:.+}", f.repoHandler(PermRead, f.gdGetBranch)).Methods(http.MethodGet)
}

// ---- JSON shapes (GitHub's; go-github's Git service decodes them) ----

type gdObjectLink struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

type gdRefJSON struct {
	Ref    string       `json:"ref"`
	NodeID string       `json:"node_id"`
	URL    string       `json:"url"`
	Object gdObjectLink `json:"object"`
}

type gdActorJSON struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

type gdSHAURL struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

type gdParentJSON struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

type gdVerificationJSON struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

type gdCommitJSON struct {
	SHA          string             `json:"sha"`
	NodeID       string             `json:"node_id"`
	URL          string             `json:"url"`
	HTMLURL      string             `json:"html_url"`
	Author       gdActorJSON        `json:"author"`
	Committer    gdActorJSON        `json:"committer"`
	Tree         gdSHAURL           `json:"tree"`
	Message      string             `json:"message"`
	Parents      []gdParentJSON     `json:"parents"`
	Verification gdVerificationJSON `json:"verification"`
}

type gdTagJSON struct {
	NodeID       string             `json:"node_id"`
	Tag          string             `json:"tag"`
	SHA          string             `json:"sha"`
	URL          string             `json:"url"`
	Message      string             `json:"message"`
	Tagger       gdActorJSON        `json:"tagger"`
	Object       gdObjectLink       `json:"object"`
	Verification gdVerificationJSON `json:"verification"`
}

func (f *Forge) gdRepoAPI(repo *Repo) string { return f.apiBase() + "/repos/" + repo.FullName() }
func (f *Forge) gdRepoWeb(repo *Repo) string { return f.webBase() + "/" + repo.FullName() }

// gdObjectURL is the git data URL of an object of a type.
func (f *Forge) gdObjectURL(repo *Repo, typ, sha string) string {
	return f.gdRepoAPI(repo) + "/git/" + typ + "s/" + sha
}

func (f *Forge) gdRefOf(repo *Repo, ref, sha, typ string) gdRefJSON {
	if typ == "" {
		typ = "commit"
	}
	return gdRefJSON{
		Ref: ref, NodeID: gdNodeID("Ref", repo.FullName()+":"+ref),
		URL:    f.gdRepoAPI(repo) + "/git/" + gdEscapePath(ref),
		Object: gdObjectLink{Type: typ, SHA: sha, URL: f.gdObjectURL(repo, typ, sha)},
	}
}

func gdActorOf(s gdSignature) gdActorJSON {
	return gdActorJSON{Name: s.Name, Email: s.Email, Date: s.When.UTC().Format(time.RFC3339)}
}

func gdVerification(sig, payload string) gdVerificationJSON {
	if sig == "" {
		return gdVerificationJSON{Reason: "unsigned"}
	}
	return gdVerificationJSON{Reason: "unknown_key", Signature: &sig, Payload: &payload}
}

func (f *Forge) gdCommitOf(repo *Repo, c *gdCommit) gdCommitJSON {
	parents := make([]gdParentJSON, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, gdParentJSON{SHA: p, URL: f.gdObjectURL(repo, "commit", p), HTMLURL: f.gdRepoWeb(repo) + "/commit/" + p})
	}
	return gdCommitJSON{
		SHA: c.SHA, NodeID: gdNodeID("Commit", repo.FullName()+":"+c.SHA),
		URL: f.gdObjectURL(repo, "commit", c.SHA), HTMLURL: f.gdRepoWeb(repo) + "/commit/" + c.SHA,
		Author: gdActorOf(c.Author), Committer: gdActorOf(c.Committer),
		Tree:    gdSHAURL{SHA: c.Tree, URL: f.gdObjectURL(repo, "tree", c.Tree)},
		Message: c.Message, Parents: parents, Verification: gdVerification(c.Signature, c.Payload),
	}
}

func (f *Forge) gdTagOf(repo *Repo, t *gdTag) gdTagJSON {
	return gdTagJSON{
		NodeID: gdNodeID("Tag", repo.FullName()+":"+t.SHA), Tag: t.Tag, SHA: t.SHA,
		URL: f.gdObjectURL(repo, "tag", t.SHA), Message: t.Message, Tagger: gdActorOf(t.Tagger),
		Object:       gdObjectLink{Type: t.ObjectType, SHA: t.Object, URL: f.gdObjectURL(repo, t.ObjectType, t.Object)},
		Verification: gdVerification(t.Signature, t.Payload),
	}
}

// gdBadSHA answers GitHub's 422 for a malformed object id.
func gdBadSHA(w http.ResponseWriter) {
	writeError(w, http.StatusUnprocessableEntity, "The sha parameter must be exactly 40 characters and contain only [0-9a-f].")
}

// gdSHAVar is the {sha} path variable, lower-cased; a malformed one is
// answered 422 and false returned.
func gdSHAVar(w http.ResponseWriter, r *http.Request) (string, bool) {
	sha := mux.Vars(r)["sha"]
	if !gdIsSHA(sha) {
		gdBadSHA(w)
		return "", false
	}
	return strings.ToLower(sha), true
}

// ---- refs ----

// gdRefVar is the {ref} path variable as a full ref name ("heads/main" and
// "refs/heads/main" both name refs/heads/main).
func gdRefVar(r *http.Request) string {
	ref := strings.TrimPrefix(mux.Vars(r)["ref"], "/")
	return "refs/" + strings.TrimPrefix(ref, "refs/")
}

// gdRefValue is the value of exactly ref, if it exists.
func (g *gitCLI) gdRefValue(path, ref string) (string, bool, error) {
	out, err := g.run(path, nil, "for-each-ref", "--format=%(objectname) %(refname)", ref)
	if err != nil {
		return "", false, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha, true, nil
		}
	}
	return "", false, nil
}

// gdRefsOf lists refs (full name -> sha) whose names start with prefix,
// sorted by name, with each object's type.
func (f *Forge) gdRefsOf(repo *Repo, prefix string) ([]gdRefJSON, error) {
	all, err := f.git.refs(repo.Path)
	if err != nil {
		return nil, err
	}
	var names, shas []string
	for name := range all {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		shas = append(shas, all[n])
	}
	info, err := f.git.gdBatchCheck(repo.Path, shas)
	if err != nil {
		return nil, err
	}
	out := make([]gdRefJSON, 0, len(names))
	for _, n := range names {
		out = append(out, f.gdRefOf(repo, n, all[n], info[all[n]].Type))
	}
	return out, nil
}

func (f *Forge) gdGetRef(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	ref := gdRefVar(r)
	sha, found, err := f.git.gdRefValue(rc.repo.Path, ref)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !found {
		notFound(w)
		return
	}
	typ, _ := f.git.objectType(rc.repo.Path, sha)
	writeJSON(w, r, http.StatusOK, f.gdRefOf(rc.repo, ref, sha, typ))
}

// gdGetRefLegacy is the old GET /git/refs/{ref}: the ref itself when it
// exists, else every ref it is a prefix of, else 404.
func (f *Forge) gdGetRefLegacy(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	ref := gdRefVar(r)
	refs, err := f.gdRefsOf(rc.repo, ref)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, x := range refs {
		if x.Ref == ref {
			writeJSON(w, r, http.StatusOK, x)
			return
		}
	}
	if len(refs) == 0 {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, refs)
}

// gdMatchingRefs answers every ref starting with refs/{ref} (all of them,
// unpaginated, as GitHub does).
func (f *Forge) gdMatchingRefs(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	refs, err := f.gdRefsOf(rc.repo, gdRefVar(r))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, refs)
}

func (f *Forge) gdListRefs(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	refs, err := f.gdRefsOf(rc.repo, "refs/")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.apiBase(), refs))
}

type gdCreateRefRequest struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// gdCreateRef creates a ref if it does not exist: an atomic
// compare-and-swap against "absent", so of concurrent creations of one
// ref exactly one succeeds and the others are 422 "Reference already
// exists".
func (f *Forge) gdCreateRef(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdCreateRefRequest) {
	var missing []string
	if req.Ref == "" {
		missing = append(missing, `"ref"`)
	}
	if req.SHA == "" {
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
	if !strings.HasPrefix(req.Ref, "refs/") || strings.Count(req.Ref, "/") < 2 {
		writeError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
		return
	}
	if !gdValidRefName(req.Ref) {
		writeError(w, http.StatusUnprocessableEntity, req.Ref+" is not a valid ref name.")
		return
	}
	if !gdIsSHA(req.SHA) {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	sha := strings.ToLower(req.SHA)

	rc.repo.mu.Lock()
	typ, err := f.git.objectType(rc.repo.Path, sha)
	if err != nil {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if strings.HasPrefix(req.Ref, "refs/heads/") && typ != "commit" {
		rc.repo.mu.Unlock()
		writeError(w, http.StatusUnprocessableEntity, "Object is not a commit")
		return
	}
	err = f.git.updateRef(rc.repo.Path, req.Ref, sha, zeroSHA)
	if err == nil {
		rc.repo.PushedAt = f.now()
	}
	rc.repo.mu.Unlock()
	switch {
	case errors.Is(err, errRefConflict):
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists")
		return
	case err != nil:
		writeError(w, http.StatusUnprocessableEntity, "Reference update failed")
		return
	}
	f.refsChanged(rc.repo, rc.actor(), []RefChange{{Ref: req.Ref, Before: zeroSHA, After: sha}})
	out := f.gdRefOf(rc.repo, req.Ref, sha, typ)
	w.Header().Set("Location", out.URL)
	writeJSON(w, r, http.StatusCreated, out)
}

type gdUpdateRefRequest struct {
	SHA   string `json:"sha"`
	Force bool   `json:"force"`
}

// gdUpdateRef moves a ref: a fast-forward unless force is set,
// compare-and-swap against the value it checked.
func (f *Forge) gdUpdateRef(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdUpdateRefRequest) {
	if req.SHA == "" {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	}
	if !gdIsSHA(req.SHA) {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	ref := gdRefVar(r)
	sha := strings.ToLower(req.SHA)

	rc.repo.mu.Lock()
	cur, found, err := f.git.gdRefValue(rc.repo.Path, ref)
	var typ string
	status, msg := 0, ""
	switch {
	case err != nil:
		status, msg = http.StatusInternalServerError, err.Error()
	case !found:
		status, msg = http.StatusUnprocessableEntity, "Reference does not exist"
	default:
		if typ, err = f.git.objectType(rc.repo.Path, sha); err != nil {
			status, msg = http.StatusUnprocessableEntity, "Object does not exist"
		} else if strings.HasPrefix(ref, "refs/heads/") && typ != "commit" {
			status, msg = http.StatusUnprocessableEntity, "Object is not a commit"
		} else if cur != sha && !req.Force && !f.git.isAncestor(rc.repo.Path, cur, sha) {
			status, msg = http.StatusUnprocessableEntity, "Update is not a fast forward"
		} else if cur != sha {
			if err := f.git.updateRef(rc.repo.Path, ref, sha, cur); err != nil {
				status, msg = http.StatusUnprocessableEntity, "Reference update failed"
			} else {
				rc.repo.PushedAt = f.now()
			}
		}
	}
	rc.repo.mu.Unlock()
	if status != 0 {
		writeError(w, status, msg)
		return
	}
	if cur != sha {
		f.refsChanged(rc.repo, rc.actor(), []RefChange{{Ref: ref, Before: cur, After: sha}})
	}
	writeJSON(w, r, http.StatusOK, f.gdRefOf(rc.repo, ref, sha, typ))
}

func (f *Forge) gdDeleteRef(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	ref := gdRefVar(r)
	rc.repo.mu.Lock()
	cur, found, err := f.git.gdRefValue(rc.repo.Path, ref)
	if err == nil && found {
		err = f.git.deleteRef(rc.repo.Path, ref, cur)
		if err == nil {
			rc.repo.PushedAt = f.now()
		}
	}
	rc.repo.mu.Unlock()
	switch {
	case err != nil:
		writeError(w, http.StatusUnprocessableEntity, "Reference update failed")
		return
	case !found:
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	f.refsChanged(rc.repo, rc.actor(), []RefChange{{Ref: ref, Before: cur, After: zeroSHA}})
	noContent(w)
}

// ---- commits ----

func (f *Forge) gdGetCommit(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := gdSHAVar(w, r)
	if !ok {
		return
	}
	c, err := f.git.gdReadCommit(rc.repo.Path, sha)
	if err != nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.gdCommitOf(rc.repo, c))
}

type gdActorRequest struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

type gdCreateCommitRequest struct {
	Message   *string         `json:"message"`
	Tree      string          `json:"tree"`
	Parents   []string        `json:"parents"`
	Author    *gdActorRequest `json:"author"`
	Committer *gdActorRequest `json:"committer"`
	Signature string          `json:"signature"`
}

// gdSignatureFrom is a request's author or committer, defaulting to def
// and its date to now; false for a malformed date.
func (f *Forge) gdSignatureFrom(a *gdActorRequest, def gdSignature) (gdSignature, bool) {
	if a == nil {
		return def, true
	}
	s := gdSignature{Name: a.Name, Email: a.Email, When: def.When}
	if s.Name == "" {
		s.Name = def.Name
	}
	if s.Email == "" {
		s.Email = def.Email
	}
	if a.Date != "" {
		t, err := time.Parse(time.RFC3339, a.Date)
		if err != nil {
			return s, false
		}
		s.When = t
	}
	return s, true
}

// gdIdentityOf is the git identity GitHub gives an account's web commits.
func gdIdentityOf(a *Account, when time.Time) gdSignature {
	if a == nil {
		return gdSignature{Name: "forge", Email: "forge@forge.local", When: when}
	}
	name := a.Name
	if name == "" {
		name = a.Login
	}
	return gdSignature{Name: name, Email: a.Email, When: when}
}

func (f *Forge) gdCreateCommit(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdCreateCommitRequest) {
	var missing []string
	if req.Message == nil {
		missing = append(missing, `"message"`)
	}
	if req.Tree == "" {
		missing = append(missing, `"tree"`)
	}
	if len(missing) > 0 {
		verb := " wasn't supplied."
		if len(missing) > 1 {
			verb = " weren't supplied."
		}
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n"+strings.Join(missing, ", ")+verb)
		return
	}
	if !gdIsSHA(req.Tree) {
		writeError(w, http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	revs := []string{strings.ToLower(req.Tree)}
	for _, pa := range req.Parents {
		if !gdIsSHA(pa) {
			writeError(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
		revs = append(revs, strings.ToLower(pa))
	}
	info, err := f.git.gdBatchCheck(rc.repo.Path, revs)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if info[revs[0]].Type != "tree" {
		writeError(w, http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	for _, pa := range revs[1:] {
		if info[pa].Type != "commit" {
			writeError(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
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
	var b strings.Builder
	b.WriteString("tree " + revs[0] + "\n")
	for _, pa := range revs[1:] {
		b.WriteString("parent " + pa + "\n")
	}
	b.WriteString("author " + gdFormatSignature(author) + "\n")
	b.WriteString("committer " + gdFormatSignature(committer) + "\n")
	if sig := strings.TrimRight(req.Signature, "\n"); sig != "" {
		b.WriteString("gpgsig " + strings.ReplaceAll(sig, "\n", "\n ") + "\n")
	}
	b.WriteString("\n" + *req.Message)
	sha, err := f.git.writeObject(rc.repo.Path, "commit", []byte(b.String()))
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Commit could not be created")
		return
	}
	c, err := f.git.gdReadCommit(rc.repo.Path, sha)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := f.gdCommitOf(rc.repo, c)
	w.Header().Set("Location", out.URL)
	writeJSON(w, r, http.StatusCreated, out)
}

// ---- annotated tags ----

func (f *Forge) gdGetTag(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := gdSHAVar(w, r)
	if !ok {
		return
	}
	t, err := f.git.gdReadTag(rc.repo.Path, sha)
	if err != nil {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.gdTagOf(rc.repo, t))
}

type gdCreateTagRequest struct {
	Tag     string          `json:"tag"`
	Message string          `json:"message"`
	Object  string          `json:"object"`
	Type    string          `json:"type"`
	Tagger  *gdActorRequest `json:"tagger"`
}

// gdCreateTag writes an annotated tag object (the ref is made apart,
// with POST /git/refs, as on GitHub).
func (f *Forge) gdCreateTag(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdCreateTagRequest) {
	if req.Tag == "" || req.Object == "" || req.Type == "" {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"tag\", \"message\", \"object\" and \"type\" are required.")
		return
	}
	if !gdValidRefName("refs/tags/" + req.Tag) {
		validationFailed(w, "Tag", "tag", "invalid", "tag is not a valid tag name")
		return
	}
	if !gdIsSHA(req.Object) {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	obj := strings.ToLower(req.Object)
	typ, err := f.git.objectType(rc.repo.Path, obj)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if typ != req.Type {
		writeError(w, http.StatusUnprocessableEntity, "Object is a "+typ+", not a "+req.Type)
		return
	}
	tagger, ok := f.gdSignatureFrom(req.Tagger, gdIdentityOf(rc.actor(), f.now()))
	if !ok {
		validationFailed(w, "Tag", "date", "invalid", "date is not a valid ISO 8601 timestamp")
		return
	}
	raw := "object " + obj + "\ntype " + typ + "\ntag " + req.Tag + "\ntagger " + gdFormatSignature(tagger) + "\n\n" + req.Message
	sha, err := f.git.writeObject(rc.repo.Path, "tag", []byte(raw))
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Tag could not be created")
		return
	}
	t, err := f.git.gdReadTag(rc.repo.Path, sha)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := f.gdTagOf(rc.repo, t)
	w.Header().Set("Location", out.URL)
	writeJSON(w, r, http.StatusCreated, out)
}
