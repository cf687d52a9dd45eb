package catalog_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/demo"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
)

// The catalog's world: `porchbot serve` on its embedded forge. acme (alice
// and bob) has a private package catalog whose package basens porchbot
// published twice (v1, v2), and a public one, blueprints, whose package web
// it published twice too; globex/secret, private, readable by bob alone,
// holds a package tracking web at v1 (a downstream, behind); dave reads
// nothing but public repositories.
const worldSeed = `users:
  - {login: alice, token: alice-token}
  - {login: bob, token: bob-token}
  - {login: dave, token: dave-token}
orgs:
  - {login: acme, members: [alice, bob]}
  - {login: globex, members: []}
repositories:
  - name: acme/catalog
    defaultBranch: main
    private: true
    collaborators: {alice: admin, bob: write}
  - name: acme/blueprints
    defaultBranch: main
    collaborators: {alice: admin}
  - name: globex/secret
    defaultBranch: main
    private: true
    collaborators: {bob: write}
app:
  installations: [acme, globex]
`

type world struct {
	*demo.World
	logs    *syncBuffer // everything porchbot logged
	clones  int         // clones made so far (each has a directory of its own)
	catalog string      // the catalog's URL
	forge   string      // the forge's URL
}

func startWorld(t *testing.T) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.yaml")
	if err := os.WriteFile(seed, []byte(worldSeed), 0o600); err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	logs := &syncBuffer{}
	log.SetOutput(logs)
	if os.Getenv("CATALOG_TEST_LOG") != "" {
		log.SetOutput(io.MultiWriter(logs, os.Stderr))
	}
	dw, err := demo.StartWorld(context.Background(), demo.WorldOptions{DataDir: dir, Seed: seed, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dw.Close() })
	w := &world{World: dw, logs: logs, catalog: dw.Svc.CatalogURL, forge: dw.Forge.BaseURL()}
	if w.catalog == "" {
		t.Fatal("the catalog is not served in embedded mode")
	}

	// acme/catalog: basens published as v1, then v2 (approvals.required 0:
	// every landing publishes).
	const config = "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 0\n"
	cat := w.clone(t, "alice", "acme/catalog")
	write(t, cat, ".github/porchbot.yaml", config)
	write(t, cat, "basens/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: The base namespace\n")
	write(t, cat, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base\n  labels:\n    tier: bronze\n")
	w.push(t, cat, "acme/catalog", "Add basens")
	write(t, cat, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base\n  labels:\n    tier: gold\n")
	w.push(t, cat, "acme/catalog", "basens: gold tier")

	// A draft of basens, proposed.
	w.git(t, cat, "checkout", "-q", "-b", "drafts/basens/w1")
	write(t, cat, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base\n  labels:\n    tier: platinum\n")
	w.git(t, cat, "commit", "-q", "-am", "basens: platinum tier")
	w.git(t, cat, "push", "-q", "origin", "HEAD")
	w.settle(t)
	ctx := context.Background()
	if _, _, err := w.Client("alice").PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("basens: platinum tier"), Head: github.String("drafts/basens/w1"), Base: github.String("main")}); err != nil {
		t.Fatal(err)
	}
	w.settle(t)

	// acme/blueprints, public: web published as v1 and v2.
	pub := w.clone(t, "alice", "acme/blueprints")
	write(t, pub, ".github/porchbot.yaml", config)
	write(t, pub, "web/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\ninfo:\n  description: A web tier\n")
	write(t, pub, "web/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n")
	w.push(t, pub, "acme/blueprints", "Add web")
	write(t, pub, "web/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  labels:\n    v: \"2\"\n")
	w.push(t, pub, "acme/blueprints", "web v2")

	// globex/secret, private to bob: edge, a copy of web at v1.
	sec := w.clone(t, "bob", "globex/secret")
	write(t, sec, ".github/porchbot.yaml", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n")
	write(t, sec, "edge/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: edge\nupstream:\n  type: git\n  git:\n    repo: "+
		w.forge+"/acme/blueprints.git\n    directory: web\n    ref: web/v1\n  updateStrategy: resource-merge\n")
	write(t, sec, "edge/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n")
	w.push(t, sec, "globex/secret", "Add edge from web v1")
	return w
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// clone clones fullName as login, on main.
func (w *world) clone(t *testing.T, login, fullName string) string {
	t.Helper()
	w.clones++
	dir, err := w.Clone(context.Background(), login, fullName, fmt.Sprintf("%s-%d", strings.ReplaceAll(fullName, "/", "-"), w.clones))
	if err != nil {
		t.Fatal(err)
	}
	w.git(t, dir, "checkout", "-q", "-B", "main")
	return dir
}

// push commits everything and pushes main, waits until the bot has
// handled every delivery, and reconciles the repository as the periodic
// resync does (it publishes direct pushes when no approval is required).
func (w *world) push(t *testing.T, dir, full, message string) {
	t.Helper()
	w.git(t, dir, "add", "-A")
	w.git(t, dir, "commit", "-q", "-m", message)
	w.git(t, dir, "push", "-q", "origin", "HEAD:main")
	w.settle(t)
	ctx := context.Background()
	id, err := w.Svc.Clients.InstallationIDForRepo(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	owner, name, _ := strings.Cut(full, "/")
	s, err := w.Svc.App.Opener.Open(ctx, core.Repo{Owner: owner, Name: name, InstallationID: id, DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	deps := w.Svc.ResyncDeps()
	if _, err := resync.Repository(ctx, s, deps.API(s), deps); err != nil {
		t.Fatal(err)
	}
	w.settle(t)
}

// git runs git in dir (demo.World.Git), failing the test on an error.
func (w *world) git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := w.Git(context.Background(), dir, args...); err != nil {
		t.Fatal(err)
	}
}

// viewer is a browser without JavaScript: a cookie jar that follows
// redirects.
type viewer struct {
	t *testing.T
	c *http.Client
}

func newViewer(t *testing.T) *viewer {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &viewer{t: t, c: &http.Client{Jar: jar, Timeout: time.Minute}}
}

// get fetches a page: its status, body and final URL.
func (v *viewer) get(u string) (int, string, *url.URL) {
	v.t.Helper()
	resp, err := v.c.Get(u)
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Request.URL
}

// signIn signs login in through the forge's authorize page, as a person
// fills its form, and returns the catalog's first page.
func (v *viewer) signIn(w *world, login string) string {
	v.t.Helper()
	status, _, at := v.get(w.catalog + "/")
	if status != http.StatusOK || !strings.HasPrefix(at.String(), w.forge+"/login/oauth/authorize?") {
		v.t.Fatalf("GET / signed out: %d at %s, want the forge's authorize page", status, at)
	}
	q := at.Query()
	resp, err := v.c.PostForm(w.forge+"/login/oauth/authorize", url.Values{"client_id": {q.Get("client_id")},
		"redirect_uri": {q.Get("redirect_uri")}, "state": {q.Get("state")}, "login": {login}, "token": {login + "-token"}})
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.String() != w.catalog+"/" {
		v.t.Fatalf("sign-in of %s: %d at %s\n%s", login, resp.StatusCode, resp.Request.URL, b)
	}
	return string(b)
}

// settle waits until every webhook is delivered and handled (handling
// may send more), and fails the test on a delivery porchbot refused.
func (w *world) settle(t *testing.T) {
	t.Helper()
	if err := w.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
