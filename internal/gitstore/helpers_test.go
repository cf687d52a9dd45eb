package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/porchbot/porchbot/internal/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/sirupsen/logrus"
)

const testToken = "ghs_test-installation-token"

// gitEnv isolates the git CLI from the machine's configuration.
func gitEnv(home string) []string {
	return append(os.Environ(),
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Someone Else", "GIT_AUTHOR_EMAIL=else@example.com",
		"GIT_COMMITTER_NAME=Someone Else", "GIT_COMMITTER_EMAIL=else@example.com",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// runGit runs the git CLI in dir.
func runGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(os.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// mustGit runs the git CLI and fails the test on error. Test goroutine only.
func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := runGit(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gitServer serves bare repositories over smart HTTP with the real
// git http-backend (CGI), requiring HTTP basic auth with testToken.
type gitServer struct {
	t    *testing.T
	root string
	srv  *httptest.Server

	mu            sync.Mutex
	beforeReceive func() // run once, when the next POST git-receive-pack arrives

	receivePacks atomic.Int64
}

func newGitServer(t *testing.T) *gitServer {
	t.Helper()
	execPath := mustGit(t, "", "--exec-path")
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git http-backend not available: %v", err)
	}
	g := &gitServer{t: t, root: t.TempDir()}
	home := t.TempDir()
	cgiHandler := &cgi.Handler{
		Path: backend,
		Env: []string{
			"GIT_PROJECT_ROOT=" + g.root,
			"GIT_HTTP_EXPORT_ALL=1",
			"REMOTE_USER=" + TokenUser,
			"HOME=" + home,
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
		},
		InheritEnv: []string{"PATH"},
		Stderr:     io.Discard,
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != TokenUser || pass != testToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			g.receivePacks.Add(1)
			g.mu.Lock()
			hook := g.beforeReceive
			g.beforeReceive = nil
			g.mu.Unlock()
			if hook != nil {
				hook()
			}
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// onNextReceivePack runs fn inside the next push request, after the client
// has read the ref advertisement and before receive-pack runs.
func (g *gitServer) onNextReceivePack(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.beforeReceive = fn
}

// newRepo creates an empty bare repository owner/name with pushes enabled
// and returns its URL and directory.
func (g *gitServer) newRepo(owner, name string) (string, string) {
	g.t.Helper()
	dir := filepath.Join(g.root, owner, name+".git")
	mustGit(g.t, "", "init", "--quiet", "--bare", "--initial-branch=main", dir)
	mustGit(g.t, dir, "config", "http.receivepack", "true")
	return g.srv.URL + "/" + owner + "/" + name + ".git", dir
}

// workTree is a working clone used to play "someone else".
type workTree struct {
	t   *testing.T
	dir string
}

func newWorkTree(t *testing.T, bare string) *workTree {
	t.Helper()
	dir := t.TempDir()
	mustGit(t, dir, "init", "--quiet", "--initial-branch=main")
	mustGit(t, dir, "remote", "add", "origin", bare)
	return &workTree{t: t, dir: dir}
}

func (w *workTree) write(path, content string, mode os.FileMode) {
	w.t.Helper()
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		w.t.Fatal(err)
	}
}

func (w *workTree) remove(path string) {
	w.t.Helper()
	mustGit(w.t, w.dir, "rm", "-r", "--quiet", path)
}

func (w *workTree) commit(msg string) plumbing.Hash {
	w.t.Helper()
	mustGit(w.t, w.dir, "add", "-A")
	mustGit(w.t, w.dir, "commit", "--quiet", "--allow-empty", "-m", msg)
	return plumbing.NewHash(mustGit(w.t, w.dir, "rev-parse", "HEAD"))
}

func (w *workTree) git(args ...string) string {
	w.t.Helper()
	return mustGit(w.t, w.dir, args...)
}

// fixture is a server with one seeded repository and a Store.
type fixture struct {
	t       *testing.T
	server  *gitServer
	url     string
	bare    string
	work    *workTree
	store   *Store
	metrics *metrics.Metrics
	token   atomic.Value // string
}

// newFixture seeds owner/repo with a main branch holding two packages, a
// feature branch and two tags (lightweight and annotated).
func newFixture(t *testing.T, tweak ...func(*Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, server: newGitServer(t), metrics: metrics.New()}
	f.url, f.bare = f.server.newRepo("acme", "packages")
	f.token.Store(testToken)

	w := newWorkTree(t, f.bare)
	w.write("README.md", "# packages\n", 0o644)
	w.write("network/upf/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n", 0o644)
	w.write("network/upf/deployment.yaml", "kind: Deployment\n", 0o644)
	w.write("network/upf/scripts/render.sh", "#!/bin/sh\necho render\n", 0o755)
	w.write("network/upf/sub/Kptfile", "kind: Kptfile\n", 0o644)
	w.write("network/smf/Kptfile", "kind: Kptfile\nmetadata:\n  name: smf\n", 0o644)
	w.commit("initial")
	w.git("tag", "network/upf/v1")
	w.write("network/upf/deployment.yaml", "kind: Deployment\nspec: {}\n", 0o644)
	w.commit("second")
	w.git("tag", "-a", "-m", "release 2", "network/upf/v2")
	w.git("push", "--quiet", "origin", "main", "--tags")
	w.git("checkout", "--quiet", "-b", "feature")
	w.write("feature.txt", "feature\n", 0o644)
	w.commit("feature")
	w.git("push", "--quiet", "origin", "feature")
	w.git("checkout", "--quiet", "main")
	f.work = w

	opts := Options{
		Dir: t.TempDir(),
		Auth: func(ctx context.Context, repo string) (transport.AuthMethod, error) {
			if repo != "acme/packages" {
				return nil, fmt.Errorf("unexpected repository %q", repo)
			}
			return TokenAuth(f.token.Load().(string)), nil
		},
		Metrics: f.metrics,
		Logger:  quietLogger(),
	}
	for _, fn := range tweak {
		fn(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	f.store = s
	return f
}

type authMethod = transport.AuthMethod

// newTokenStore returns a Store that authenticates with testToken.
func newTokenStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(Options{Dir: t.TempDir(), Logger: quietLogger(),
		Auth: func(context.Context, string) (authMethod, error) { return TokenAuth(testToken), nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func quietLogger() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// fetch fetches branches and tags into the cache.
func (f *fixture) fetch() *Cache {
	f.t.Helper()
	c, err := f.store.Fetch(context.Background(), f.url, BranchesRefSpec, TagsRefSpec)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// remoteRef returns a ref on the server, ZeroHash if absent.
func (f *fixture) remoteRef(ref string) plumbing.Hash {
	f.t.Helper()
	out, err := runGit(f.bare, "rev-parse", "--verify", "--quiet", ref)
	if err != nil {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(out)
}

func (f *fixture) gitOps(operation, outcome string) float64 {
	f.t.Helper()
	var m dto.Metric
	if err := f.metrics.GitOperations.WithLabelValues(operation, outcome).Write(&m); err != nil {
		f.t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func botSignature() object.Signature {
	return object.Signature{Name: "porchbot[bot]", Email: "porchbot[bot]@users.noreply.github.com"}
}

// commitFiles makes a commit replacing dir on parent.
func commitFiles(t *testing.T, c *Cache, parent plumbing.Hash, dir string, files map[string][]byte, msg string) plumbing.Hash {
	t.Helper()
	h, err := c.Commit(context.Background(), CommitRequest{
		Parent: parent, Dir: dir, Files: files, Message: msg, Author: botSignature(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustResolve(t *testing.T, c *Cache, name string) plumbing.Hash {
	t.Helper()
	h, err := c.ResolveRef(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
