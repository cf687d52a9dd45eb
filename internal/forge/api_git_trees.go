package forge

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// Trees and blobs of the git data API.

// gdMaxTreeEntries is where GitHub truncates a recursive tree listing.
const gdMaxTreeEntries = 100000

type gdTreeEntryJSON struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int64 `json:"size,omitempty"`
	URL  string `json:"url,omitempty"`
}

type gdTreeJSON struct {
	SHA       string            `json:"sha"`
	URL       string            `json:"url"`
	Tree      []gdTreeEntryJSON `json:"tree"`
	Truncated bool              `json:"truncated"`
}

type gdBlobJSON struct {
	SHA      string `json:"sha"`
	NodeID   string `json:"node_id"`
	Size     int64  `json:"size"`
	URL      string `json:"url"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

func (f *Forge) gdTreeOf(repo *Repo, sha string, entries []gdTreeEntry) gdTreeJSON {
	out := gdTreeJSON{SHA: sha, URL: f.gdObjectURL(repo, "tree", sha), Tree: make([]gdTreeEntryJSON, 0, len(entries))}
	if len(entries) > gdMaxTreeEntries {
		entries, out.Truncated = entries[:gdMaxTreeEntries], true
	}
	for _, e := range entries {
		j := gdTreeEntryJSON{Path: e.Path, Mode: e.Mode, Type: e.Type, SHA: e.SHA}
		if e.Type == "blob" {
			size := e.Size
			j.Size = &size
		}
		if e.Type != "commit" {
			j.URL = f.gdObjectURL(repo, e.Type, e.SHA)
		}
		out.Tree = append(out.Tree, j)
	}
	return out
}

// gdGetTree lists a tree, named by its sha or by anything that resolves to
// one (a commit sha, a branch or tag name); with ?recursive (any value,
// as on GitHub) the whole hierarchy, trees included.
func (f *Forge) gdGetTree(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rev := mux.Vars(r)["sha"]
	if !gdValidRev(rev) {
		notFound(w)
		return
	}
	sha, err := f.git.resolve(rc.repo.Path, rev+"^{tree}")
	if err != nil {
		notFound(w)
		return
	}
	entries, err := f.git.gdLsTree(rc.repo.Path, sha, r.URL.Query().Has("recursive"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, f.gdTreeOf(rc.repo, sha, entries))
}

type gdTreeEntryRequest struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
}

type gdCreateTreeRequest struct {
	BaseTree string               `json:"base_tree"`
	Tree     []gdTreeEntryRequest `json:"tree"`
}

// gdTypeOfMode is the object type a tree entry mode holds.
func gdTypeOfMode(mode string) (string, bool) {
	switch mode {
	case "100644", "100755", "120000":
		return "blob", true
	case "040000":
		return "tree", true
	case "160000":
		return "commit", true
	}
	return "", false
}

// gdCreateTree builds a tree as GitHub does: entries are applied in order
// on top of base_tree (or an empty tree); paths may be nested (missing
// directories are made); an entry with neither sha nor content (sha
// null) deletes its path; directories left empty disappear.
func (f *Forge) gdCreateTree(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdCreateTreeRequest) {
	if req.Tree == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"tree\" wasn't supplied.")
		return
	}
	fail := func(msg string) { writeError(w, http.StatusUnprocessableEntity, msg) }
	var check []string
	for i := range req.Tree {
		e := &req.Tree[i]
		if !gdValidTreePath(e.Path) {
			fail(fmt.Sprintf("tree.path %q is not a valid path", e.Path))
			return
		}
		if e.Mode == "40000" {
			e.Mode = "040000"
		}
		typ, ok := gdTypeOfMode(e.Mode)
		if !ok {
			fail(fmt.Sprintf("tree.mode %q is not a valid mode (100644, 100755, 040000, 160000, 120000)", e.Mode))
			return
		}
		if e.Type == "" {
			e.Type = typ
		}
		if e.Type != typ {
			fail(fmt.Sprintf("tree.type %q does not match mode %s", e.Type, e.Mode))
			return
		}
		if e.SHA != nil && e.Content != nil {
			fail("tree.sha and tree.content cannot both be supplied")
			return
		}
		if e.Content != nil && typ != "blob" {
			fail("tree.content is only for blobs")
			return
		}
		if e.SHA != nil {
			if !gdIsSHA(*e.SHA) {
				fail(fmt.Sprintf("tree.sha %s is not a valid %s", *e.SHA, typ))
				return
			}
			s := strings.ToLower(*e.SHA)
			e.SHA = &s
			if typ != "commit" { // submodule commits live elsewhere
				check = append(check, s)
			}
		}
	}
	info, err := f.git.gdBatchCheck(rc.repo.Path, check)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, e := range req.Tree {
		if e.SHA != nil && e.Type != "commit" && info[*e.SHA].Type != e.Type {
			fail(fmt.Sprintf("tree.sha %s is not a valid %s", *e.SHA, e.Type))
			return
		}
	}
	b := &gdTreeBuilder{g: f.git, path: rc.repo.Path}
	base := ""
	if req.BaseTree != "" {
		if !gdIsSHA(req.BaseTree) {
			fail("base_tree is not a valid tree")
			return
		}
		if base, err = f.git.resolve(rc.repo.Path, strings.ToLower(req.BaseTree)+"^{tree}"); err != nil {
			fail("base_tree is not a valid tree")
			return
		}
	}
	root, err := b.load(base)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, e := range req.Tree {
		var ne *gdTreeNodeEntry
		switch {
		case e.Content != nil:
			sha, err := f.git.writeObject(rc.repo.Path, "blob", []byte(*e.Content))
			if err != nil {
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			ne = &gdTreeNodeEntry{mode: e.Mode, typ: "blob", sha: sha}
		case e.SHA != nil:
			ne = &gdTreeNodeEntry{mode: e.Mode, typ: e.Type, sha: *e.SHA}
		}
		if err := b.set(root, e.Path, ne); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	sha, err := b.write(root, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	entries, err := f.git.gdLsTree(rc.repo.Path, sha, false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := f.gdTreeOf(rc.repo, sha, entries)
	w.Header().Set("Location", out.URL)
	writeJSON(w, r, http.StatusCreated, out)
}

// gdTreeBuilder edits trees in memory, loading directories from git as a
// path reaches them, and writes only the directories it changed.
type gdTreeBuilder struct {
	g    *gitCLI
	path string
}

type gdTreeNode struct {
	entries map[string]*gdTreeNodeEntry
}

type gdTreeNodeEntry struct {
	mode, typ, sha string
	sub            *gdTreeNode // loaded (and possibly changed) directory
}

func (b *gdTreeBuilder) load(sha string) (*gdTreeNode, error) {
	n := &gdTreeNode{entries: map[string]*gdTreeNodeEntry{}}
	if sha == "" {
		return n, nil
	}
	es, err := b.g.gdLsTree(b.path, sha, false)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		n.entries[e.Path] = &gdTreeNodeEntry{mode: e.Mode, typ: e.Type, sha: e.SHA}
	}
	return n, nil
}

// set puts e at path (nil removes it), making directories on the way.
func (b *gdTreeBuilder) set(root *gdTreeNode, path string, e *gdTreeNodeEntry) error {
	parts := strings.Split(path, "/")
	n := root
	for _, dir := range parts[:len(parts)-1] {
		de := n.entries[dir]
		if de == nil || de.typ != "tree" {
			if e == nil {
				return nil // nothing there to delete
			}
			de = &gdTreeNodeEntry{mode: "040000", typ: "tree", sub: &gdTreeNode{entries: map[string]*gdTreeNodeEntry{}}}
			n.entries[dir] = de
		}
		if de.sub == nil {
			sub, err := b.load(de.sha)
			if err != nil {
				return err
			}
			de.sub = sub
		}
		n = de.sub
	}
	name := parts[len(parts)-1]
	if e == nil {
		delete(n.entries, name)
	} else {
		n.entries[name] = e
	}
	return nil
}

// write stores n and its changed directories; an empty directory is ""
// (dropped by its parent) unless it is the root.
func (b *gdTreeBuilder) write(n *gdTreeNode, root bool) (string, error) {
	var in bytes.Buffer
	count := 0
	for name, e := range n.entries {
		if e.sub != nil {
			sha, err := b.write(e.sub, false)
			if err != nil {
				return "", err
			}
			if sha == "" {
				continue
			}
			e.sha, e.sub = sha, nil
		}
		fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.mode, e.typ, e.sha, name)
		count++
	}
	if count == 0 && !root {
		return "", nil
	}
	out, err := b.g.run(b.path, in.Bytes(), "mktree", "-z", "--missing")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ---- blobs ----

// gdWantsRaw reports whether the client asked for the raw media type.
func gdWantsRaw(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/vnd.github.raw") || strings.Contains(a, "application/vnd.github.v3.raw")
}

func (f *Forge) gdGetBlob(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	sha, ok := gdSHAVar(w, r)
	if !ok {
		return
	}
	if t, err := f.git.objectType(rc.repo.Path, sha); err != nil || t != "blob" {
		notFound(w)
		return
	}
	data, err := f.git.readObject(rc.repo.Path, "blob", sha)
	if err != nil {
		notFound(w)
		return
	}
	if gdWantsRaw(r) {
		w.Header().Set("Content-Type", "application/vnd.github.raw")
		w.Header().Set("ETag", `"`+sha+`"`)
		if etagMatches(r.Header.Get("If-None-Match"), `"`+sha+`"`) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(data)
		return
	}
	writeJSON(w, r, http.StatusOK, gdBlobJSON{SHA: sha, NodeID: gdNodeID("Blob", rc.repo.FullName()+":"+sha),
		Size: int64(len(data)), URL: f.gdObjectURL(rc.repo, "blob", sha), Content: gdBase64(data), Encoding: "base64"})
}

type gdCreateBlobRequest struct {
	Content  *string `json:"content"`
	Encoding string  `json:"encoding"`
}

func (f *Forge) gdCreateBlob(w http.ResponseWriter, r *http.Request, rc *reqCtx, req gdCreateBlobRequest) {
	if req.Content == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	var data []byte
	switch strings.ToLower(req.Encoding) {
	case "", "utf-8", "utf8":
		data = []byte(*req.Content)
	case "base64":
		var err error
		if data, err = base64.StdEncoding.DecodeString(*req.Content); err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(strings.NewReplacer("\n", "", "\r", "").Replace(*req.Content), "=")); err != nil {
				writeError(w, http.StatusUnprocessableEntity, "content is not valid Base64")
				return
			}
		}
	default:
		writeError(w, http.StatusUnprocessableEntity, "encoding must be utf-8 or base64")
		return
	}
	sha, err := f.git.writeObject(rc.repo.Path, "blob", data)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	u := f.gdObjectURL(rc.repo, "blob", sha)
	w.Header().Set("Location", u)
	writeJSON(w, r, http.StatusCreated, gdSHAURL{SHA: sha, URL: u})
}
