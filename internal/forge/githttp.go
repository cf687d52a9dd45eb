package forge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gorilla/mux"
)

// Git smart HTTP, served by the real `git http-backend` through CGI:
//
//	GET  /{owner}/{repo}[.git]/info/refs?service=git-upload-pack|git-receive-pack
//	POST /{owner}/{repo}[.git]/git-upload-pack
//	POST /{owner}/{repo}[.git]/git-receive-pack
//
// Credentials are HTTP basic as on GitHub: any user name with a personal
// or installation token as password (x-access-token:<token>), or the token
// as user name with an empty or "x-oauth-basic" password. Anonymous
// callers read public repositories; a repository they may not see, or any
// push, is answered 401 with a Basic challenge so git asks for (or fails
// on) credentials. An authenticated caller without read access gets 404,
// one without write access who pushes gets 403. Only the smart protocol is
// served.
//
// Pushes to one repository are serialised with the REST ref updates under
// the repository's lock; after a push the changed refs send the push,
// create and delete webhooks (and pull requests and check suites follow)
// before git's answer is returned, so once a push returns its webhooks are
// queued.

// gitMaxBody bounds a git request body (a pushed pack).
const gitMaxBody = 1 << 30

// gitSpoolInMemory is how much of a request body is kept in memory before
// spooling to a temporary file.
const gitSpoolInMemory = 1 << 20

func (f *Forge) routesGitHTTP(root *mux.Router) {
	root.HandleFunc("/{owner}/{repo}/info/refs", f.gitInfoRefs).Methods(http.MethodGet)
	root.HandleFunc("/{owner}/{repo}/git-upload-pack", f.gitUploadPack).Methods(http.MethodPost)
	root.HandleFunc("/{owner}/{repo}/git-receive-pack", f.gitReceivePack).Methods(http.MethodPost)
	// Raw file downloads, the contents API's download_url.
	root.HandleFunc("/{owner}/{repo}/raw/{rest:.+}", f.ctRaw).Methods(http.MethodGet)
}

func (f *Forge) gitInfoRefs(w http.ResponseWriter, r *http.Request) {
	f.stats.add("GIT info-refs")
	need := PermRead
	switch r.URL.Query().Get("service") {
	case "git-upload-pack":
	case "git-receive-pack":
		need = PermWrite
	default:
		gitText(w, http.StatusForbidden, "The dumb HTTP protocol is not supported; use a git client speaking smart HTTP.")
		return
	}
	repo, p, ok := f.gitAuthorize(w, r, need)
	if !ok {
		return
	}
	f.gitBackend(w, r, repo, p, "info/refs")
}

func (f *Forge) gitUploadPack(w http.ResponseWriter, r *http.Request) {
	f.stats.add("GIT upload-pack")
	repo, p, ok := f.gitAuthorize(w, r, PermRead)
	if !ok {
		return
	}
	body, cleanup, ok := gitSpool(w, r)
	if !ok {
		return
	}
	defer cleanup()
	f.gitBackend(w, body, repo, p, "git-upload-pack")
}

func (f *Forge) gitReceivePack(w http.ResponseWriter, r *http.Request) {
	f.stats.add("GIT receive-pack")
	repo, p, ok := f.gitAuthorize(w, r, PermWrite)
	if !ok {
		return
	}
	// Read the whole pack before taking the lock: a slow client does not
	// hold up the repository.
	body, cleanup, ok := gitSpool(w, r)
	if !ok {
		return
	}
	defer cleanup()

	rec := &gitBufferedResponse{header: http.Header{}}
	var changes []RefChange
	err := func() error {
		repo.mu.Lock()
		defer repo.mu.Unlock()
		before, err := f.git.refs(repo.Path)
		if err != nil {
			return err
		}
		f.gitBackend(rec, body, repo, p, "git-receive-pack")
		after, err := f.git.refs(repo.Path)
		if err != nil {
			return err
		}
		changes = diffRefs(before, after)
		if len(changes) > 0 {
			repo.PushedAt = f.now()
		}
		return nil
	}()
	if err != nil {
		f.log.WithError(err).WithField("repo", repo.FullName()).Error("receive-pack")
		gitText(w, http.StatusInternalServerError, "Internal error")
		return
	}
	if len(changes) > 0 {
		f.refsChanged(repo, actor(p), changes)
	}
	rec.copyTo(w)
}

// diffRefs lists the refs that differ, sorted by name.
func diffRefs(before, after map[string]string) []RefChange {
	var out []RefChange
	for name, old := range before {
		if cur, ok := after[name]; !ok {
			out = append(out, RefChange{Ref: name, Before: old, After: zeroSHA})
		} else if cur != old {
			out = append(out, RefChange{Ref: name, Before: old, After: cur})
		}
	}
	for name, cur := range after {
		if _, ok := before[name]; !ok {
			out = append(out, RefChange{Ref: name, Before: zeroSHA, After: cur})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// gitPrincipal authenticates a git request: basic credentials with the
// token as password, or as user name when the password is empty or
// "x-oauth-basic".
func (f *Forge) gitPrincipal(r *http.Request) (*principal, error) {
	if user, pass, ok := r.BasicAuth(); ok && user != "" && (pass == "" || pass == "x-oauth-basic") {
		r2 := r.Clone(r.Context())
		r2.Header.Set("Authorization", "token "+user)
		return f.authenticate(r2)
	}
	return f.authenticate(r)
}

// gitAuthorize resolves the repository and checks the caller may act on
// it with need, answering (401, 403, 404) when not.
func (f *Forge) gitAuthorize(w http.ResponseWriter, r *http.Request, need Permission) (*Repo, *principal, bool) {
	p, err := f.gitPrincipal(r)
	if err != nil {
		gitUnauthorized(w, "Invalid username or token. Password authentication is not supported for Git operations.")
		return nil, nil, false
	}
	v := mux.Vars(r)
	name := strings.TrimSuffix(v["repo"], ".git")
	repo, ok := f.Repo(v["owner"] + "/" + name)
	perm := PermNone
	if ok {
		perm = f.permission(p, repo)
	}
	if !ok || perm < PermRead {
		if p == nil {
			gitUnauthorized(w, "Authentication required.")
		} else {
			gitText(w, http.StatusNotFound, "Repository not found.")
		}
		return nil, nil, false
	}
	if perm < need {
		switch {
		case p == nil:
			gitUnauthorized(w, "Authentication required to push.")
		case p.kind == principalInstallation:
			gitText(w, http.StatusForbidden, "Write access to repository not granted.")
		default:
			gitText(w, http.StatusForbidden, fmt.Sprintf("Permission to %s.git denied to %s.", repo.FullName(), p.account.Login))
		}
		return nil, nil, false
	}
	return repo, p, true
}

func gitUnauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
	gitText(w, http.StatusUnauthorized, msg)
}

// gitText answers a plain-text message, which git shows as "remote: ...".
func gitText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// gitSpool reads a request body (bounded by gitMaxBody) into memory or a
// temporary file and returns a request whose body has a known length: CGI
// cannot take chunked bodies, and git sends large ones chunked.
func gitSpool(w http.ResponseWriter, r *http.Request) (*http.Request, func(), bool) {
	src := http.MaxBytesReader(w, r.Body, gitMaxBody)
	var mem bytes.Buffer
	n, err := io.Copy(&mem, io.LimitReader(src, gitSpoolInMemory+1))
	if err != nil {
		gitSpoolError(w, err)
		return nil, nil, false
	}
	r2 := r.Clone(r.Context())
	r2.TransferEncoding = nil
	r2.Header.Del("Transfer-Encoding")
	if n <= gitSpoolInMemory {
		r2.Body = io.NopCloser(bytes.NewReader(mem.Bytes()))
		r2.ContentLength = n
		return r2, func() {}, true
	}
	tmp, err := os.CreateTemp("", "forge-git-body-*")
	if err != nil {
		gitText(w, http.StatusInternalServerError, "Internal error")
		return nil, nil, false
	}
	cleanup := func() { _ = tmp.Close(); _ = os.Remove(tmp.Name()) }
	if _, err := tmp.Write(mem.Bytes()); err != nil {
		cleanup()
		gitText(w, http.StatusInternalServerError, "Internal error")
		return nil, nil, false
	}
	rest, err := io.Copy(tmp, src)
	if err != nil {
		cleanup()
		gitSpoolError(w, err)
		return nil, nil, false
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		cleanup()
		gitText(w, http.StatusInternalServerError, "Internal error")
		return nil, nil, false
	}
	r2.Body = io.NopCloser(tmp)
	r2.ContentLength = n + rest
	return r2, cleanup, true
}

func gitSpoolError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		gitText(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body exceeds %d bytes.", int64(gitMaxBody)))
		return
	}
	gitText(w, http.StatusBadRequest, "Could not read the request body.")
}

// gitBackendPath is the absolute path of the git executable (CGI needs one).
func (f *Forge) gitBackendPath() (string, error) {
	bin, err := exec.LookPath(f.opts.GitBinary)
	if err != nil {
		return "", err
	}
	return filepath.Abs(bin)
}

// gitBackend runs git http-backend for one of the repository's smart HTTP
// endpoints. PATH_INFO is built from the repository's own path on disk,
// never from the request, so nothing outside the forge's directory can be
// named.
func (f *Forge) gitBackend(w http.ResponseWriter, r *http.Request, repo *Repo, p *principal, endpoint string) {
	bin, err := f.gitBackendPath()
	if err != nil {
		gitText(w, http.StatusInternalServerError, "git is not installed")
		return
	}
	root, err := filepath.Abs(f.opts.Dir)
	if err != nil {
		gitText(w, http.StatusInternalServerError, "Internal error")
		return
	}
	rel, err := filepath.Rel(root, repo.Path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel, err = filepath.Rel(f.opts.Dir, repo.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			gitText(w, http.StatusInternalServerError, "Internal error")
			return
		}
	}
	env := []string{
		"GIT_PROJECT_ROOT=" + root,
		"GIT_HTTP_EXPORT_ALL=1",
		"PATH_INFO=/" + filepath.ToSlash(rel) + "/" + endpoint,
		"GIT_CONFIG_NOSYSTEM=1",
		"LC_ALL=C",
		// No background "gc --auto" after pushes: nothing may touch the
		// repository once the push has answered.
		"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=receive.autogc", "GIT_CONFIG_VALUE_0=false",
		// refs/pull/* are GitHub's, not a pusher's: a push to one is
		// refused ("deny updating a hidden ref"), as GitHub refuses it.
		"GIT_CONFIG_KEY_1=receive.hideRefs", "GIT_CONFIG_VALUE_1=refs/pull/",
	}
	if p != nil && p.account != nil {
		env = append(env, "REMOTE_USER="+p.account.Login)
	}
	var stderr gitLimitedBuffer
	h := &cgi.Handler{Path: bin, Args: []string{"http-backend"}, Env: env, Stderr: &stderr,
		InheritEnv: []string{"HOME", "TMPDIR"}}
	h.ServeHTTP(w, r)
	if s := strings.TrimSpace(stderr.String()); s != "" {
		f.log.WithField("repo", repo.FullName()).WithField("endpoint", endpoint).Debug("git http-backend: " + s)
	}
}

// gitLimitedBuffer keeps the first 64 KiB written to it.
type gitLimitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *gitLimitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 64<<10 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *gitLimitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// gitBufferedResponse holds a CGI answer until the push's consequences
// are under way.
type gitBufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *gitBufferedResponse) Header() http.Header { return b.header }

func (b *gitBufferedResponse) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *gitBufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *gitBufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
