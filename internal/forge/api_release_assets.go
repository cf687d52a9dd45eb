package forge

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// Release assets, as GitHub serves them: the upload is a POST of the raw
// bytes to the release's upload_url (under /api/uploads, GitHub's
// uploads.github.com), ?name= naming the file (unique per release);
// listing, reading (JSON, or the bytes with Accept:
// application/octet-stream) and deleting are REST calls; each asset's
// browser_download_url serves its bytes to whoever may read the
// repository.

// uploadsPrefix is where uploads live, as on GitHub Enterprise Server.
const uploadsPrefix = "/api/uploads"

// maxAssetBytes bounds one asset in the forge's memory (GitHub's bound
// is 2 GiB; the forge keeps assets in memory).
const maxAssetBytes = 32 << 20

// ReleaseAsset is one file attached to a release.
type ReleaseAsset struct {
	ID          int64
	Name        string
	Label       string
	ContentType string
	Data        []byte
	Uploader    *Account
	CreatedAt   time.Time
	Downloads   int
}

// routesReleaseAssets registers the REST calls on api (under apiPrefix).
func (f *Forge) routesReleaseAssets(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/releases/{id}/assets", f.repoHandler(PermRead, f.listReleaseAssets)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases/assets/{asset_id}", f.repoHandler(PermRead, f.getReleaseAsset)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases/assets/{asset_id}", f.repoHandler(PermWrite, f.deleteReleaseAsset)).Methods(http.MethodDelete)
}

// routesUploads registers the upload on up (under uploadsPrefix).
func (f *Forge) routesUploads(up *mux.Router) {
	up.HandleFunc("/repos/{owner}/{repo}/releases/{id}/assets", f.repoHandler(PermWrite, f.uploadReleaseAsset)).Methods(http.MethodPost)
}

// routesAssetDownloads serves browser_download_url.
func (f *Forge) routesAssetDownloads(root *mux.Router) {
	root.HandleFunc("/{owner}/{repo}/releases/download/{tag:.+}/{name}", f.downloadReleaseAsset).Methods(http.MethodGet)
}

// releaseAssetObject is an asset as GitHub shows it.
func (f *Forge) releaseAssetObject(repo *Repo, rel Release, a ReleaseAsset) map[string]any {
	obj := &github.ReleaseAsset{
		ID: github.Int64(a.ID), NodeID: github.String(nodeID("ReleaseAsset", a.ID)),
		URL:  github.String(fmt.Sprintf("%s/repos/%s/releases/assets/%d", f.apiBase(), repo.FullName(), a.ID)),
		Name: github.String(a.Name), State: github.String("uploaded"), ContentType: github.String(a.ContentType),
		Size: github.Int(len(a.Data)), DownloadCount: github.Int(a.Downloads),
		CreatedAt: ts(a.CreatedAt), UpdatedAt: ts(a.CreatedAt), Uploader: f.userObject(a.Uploader),
		BrowserDownloadURL: github.String(fmt.Sprintf("%s/%s/releases/download/%s/%s", f.webBase(), repo.FullName(),
			escapeSegments(rel.TagName), url.PathEscape(a.Name))),
	}
	m := jsonObjectOf(obj)
	sum := sha256.Sum256(a.Data)
	m["digest"] = "sha256:" + hex.EncodeToString(sum[:])
	m["label"] = nil
	if a.Label != "" {
		m["label"] = a.Label
	}
	if a.Uploader == nil {
		m["uploader"] = nil
	}
	return m
}

// escapeSegments escapes each segment of a slash-separated path.
func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// releaseAssetObjects are a release's assets, oldest first.
func (f *Forge) releaseAssetObjects(repo *Repo, rel Release) []any {
	out := make([]any, 0, len(rel.Assets))
	for _, a := range rel.Assets {
		out = append(out, f.releaseAssetObject(repo, rel, *a))
	}
	return out
}

func (f *Forge) listReleaseAssets(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, ok := f.readRelease(rc)
	if !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), f.releaseAssetObjects(rc.repo, rel)))
}

// assetFor resolves {asset_id} among the releases the caller may see (404
// otherwise).
func (f *Forge) assetFor(rc *reqCtx) (Release, ReleaseAsset, bool) {
	rel, a, err := f.assetByVar(rc.r, rc.repo, rc.caller)
	if err != nil {
		notFound(rc.w)
		return Release{}, ReleaseAsset{}, false
	}
	return rel, a, true
}

var errAssetNotFound = errors.New("no such asset")

// assetByVar finds {asset} among the releases the caller may see.
func (f *Forge) assetByVar(r *http.Request, repo *Repo, p *principal) (Release, ReleaseAsset, error) {
	id, err := strconv.ParseInt(mux.Vars(r)["asset_id"], 10, 64)
	if err != nil || id <= 0 {
		return Release{}, ReleaseAsset{}, errAssetNotFound
	}
	drafts := f.canSeeDrafts(p, repo)
	repo.mu.Lock()
	defer repo.mu.Unlock()
	for _, rel := range repo.Releases {
		if rel.Draft && !drafts {
			continue
		}
		for _, a := range rel.Assets {
			if a.ID == id {
				return *rel, *a, nil
			}
		}
	}
	return Release{}, ReleaseAsset{}, errAssetNotFound
}

// getReleaseAsset answers the asset's JSON, or its bytes when the client
// asks for application/octet-stream (GitHub redirects to a download URL;
// a client following redirects sees the same bytes).
func (f *Forge) getReleaseAsset(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, a, ok := f.assetFor(rc)
	if !ok {
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "application/octet-stream") {
		f.countDownload(rc.repo, a.ID)
		writeAssetBytes(w, a)
		return
	}
	writeJSON(w, r, http.StatusOK, f.releaseAssetObject(rc.repo, rel, a))
}

func writeAssetBytes(w http.ResponseWriter, a ReleaseAsset) {
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Name}))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.Data)
}

func (f *Forge) countDownload(repo *Repo, id int64) {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	for _, rel := range repo.Releases {
		for _, a := range rel.Assets {
			if a.ID == id {
				a.Downloads++
			}
		}
	}
}

func (f *Forge) deleteReleaseAsset(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	_, a, ok := f.assetFor(rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	for _, rel := range rc.repo.Releases {
		kept := make([]*ReleaseAsset, 0, len(rel.Assets))
		for _, x := range rel.Assets {
			if x.ID != a.ID {
				kept = append(kept, x)
			}
		}
		rel.Assets = kept
	}
	rc.repo.mu.Unlock()
	noContent(w)
}

// uploadReleaseAsset is POST {upload_url}?name=NAME[&label=LABEL] with the
// file's bytes as the body and its Content-Type.
func (f *Forge) uploadReleaseAsset(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, ok := f.releaseByVar(rc)
	if !ok {
		return
	}
	name := r.URL.Query().Get("name")
	if name == "" || strings.ContainsAny(name, "/\\") || len(name) > 255 {
		validationFailed(w, "ReleaseAsset", "name", "invalid", "name is missing or not a file name")
		return
	}
	ctype := r.Header.Get("Content-Type")
	if ctype == "" {
		validationFailed(w, "ReleaseAsset", "content_type", "missing_field", "")
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAssetBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("asset larger than %d bytes", maxAssetBytes))
		return
	}
	if len(data) == 0 {
		validationFailed(w, "ReleaseAsset", "size", "invalid", "the asset is empty")
		return
	}
	a := &ReleaseAsset{ID: f.newID(), Name: name, Label: r.URL.Query().Get("label"), ContentType: ctype,
		Data: data, Uploader: rc.actor(), CreatedAt: f.now()}
	rc.repo.mu.Lock()
	for _, x := range rel.Assets {
		if x.Name == name {
			rc.repo.mu.Unlock()
			validationFailed(w, "ReleaseAsset", "name", "already_exists", "")
			return
		}
	}
	rel.Assets = append(append([]*ReleaseAsset(nil), rel.Assets...), a)
	cp := *rel
	rc.repo.mu.Unlock()
	writeJSON(w, r, http.StatusCreated, f.releaseAssetObject(rc.repo, cp, *a))
}

// downloadReleaseAsset serves browser_download_url to a reader of the
// repository (HTTP basic auth, login and token, as for git; anonymous for
// a public repository).
func (f *Forge) downloadReleaseAsset(w http.ResponseWriter, r *http.Request) {
	p, err := f.authenticate(r)
	if err != nil {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	v := mux.Vars(r)
	repo, ok := f.Repo(v["owner"] + "/" + v["repo"])
	if !ok || f.permission(p, repo) < PermRead {
		notFound(w)
		return
	}
	drafts := f.canSeeDrafts(p, repo)
	repo.mu.Lock()
	var found *ReleaseAsset
	for _, rel := range repo.Releases {
		if rel.TagName != v["tag"] || rel.Draft && !drafts {
			continue
		}
		for _, a := range rel.Assets {
			if a.Name == v["name"] {
				found = a
			}
		}
	}
	var cp ReleaseAsset
	if found != nil {
		found.Downloads++
		cp = *found
	}
	repo.mu.Unlock()
	if found == nil {
		notFound(w)
		return
	}
	writeAssetBytes(w, cp)
}
