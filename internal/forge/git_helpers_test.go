package forge_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// Helpers of the git data, contents, git HTTP and push webhook tests
// (prefixed gt, the other test files have their own).

const gtOwner, gtName = "acme", "catalog"

// gtSeed commits files (the whole tree) on branch as alice, sending no
// webhook, and returns the commit.
func gtSeed(t *testing.T, env *forgetest.Env, branch string, files map[string]string) string {
	t.Helper()
	alice, ok := env.Forge.Account("alice")
	if !ok {
		t.Fatal("no alice")
	}
	m := map[string][]byte{}
	for k, v := range files {
		m[k] = []byte(v)
	}
	sha, err := env.Forge.CommitFiles(env.CatalogRepo, branch, m, "seed "+branch, alice)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// gtWantStatus fails unless the call answered code.
func gtWantStatus(t *testing.T, what string, resp *github.Response, err error, code int) *github.ErrorResponse {
	t.Helper()
	if resp == nil {
		t.Fatalf("%s: no response: %v", what, err)
	}
	if resp.StatusCode != code {
		t.Fatalf("%s: status %d, want %d (%v)", what, resp.StatusCode, code, err)
	}
	var er *github.ErrorResponse
	errors.As(err, &er)
	return er
}

// gtHook is one webhook delivery as received.
type gtHook struct {
	Event, Delivery string
	Body            []byte
	SigOK           bool
	Payload         any // github.ParseWebHook's answer
	ParseErr        error
}

// gtHooks receives the App's webhooks on a local server.
type gtHooks struct {
	secret []byte
	mu     sync.Mutex
	got    []gtHook
}

func gtNewHooks(t *testing.T, env *forgetest.Env) *gtHooks {
	t.Helper()
	h := &gtHooks{secret: env.WebhookSecret}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, h.secret)
		mac.Write(body)
		sig := r.Header.Get("X-Hub-Signature-256")
		ok := hmac.Equal([]byte(sig), []byte("sha256="+hex.EncodeToString(mac.Sum(nil))))
		ev := r.Header.Get("X-GitHub-Event")
		p, perr := github.ParseWebHook(ev, body)
		h.mu.Lock()
		h.got = append(h.got, gtHook{Event: ev, Delivery: r.Header.Get("X-GitHub-Delivery"), Body: body, SigOK: ok,
			Payload: p, ParseErr: perr})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	env.Forge.SetWebhook(srv.URL, env.WebhookSecret)
	return h
}

// take returns the deliveries received since the last take, after waiting
// for every webhook emitted so far; only push, create and delete.
func (h *gtHooks) take(t *testing.T, env *forgetest.Env) []gtHook {
	t.Helper()
	env.WaitDeliveries(t)
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []gtHook
	for _, d := range h.got {
		if d.Event != "push" && d.Event != "create" && d.Event != "delete" {
			continue
		}
		if !d.SigOK {
			t.Errorf("delivery %s (%s): bad X-Hub-Signature-256", d.Delivery, d.Event)
		}
		if d.ParseErr != nil {
			t.Errorf("delivery %s (%s): go-github cannot parse it: %v", d.Delivery, d.Event, d.ParseErr)
		}
		out = append(out, d)
	}
	h.got = nil
	return out
}

// gtEvents is "event:ref" per delivery, in order.
func gtEvents(hs []gtHook) []string {
	var out []string
	for _, h := range hs {
		switch p := h.Payload.(type) {
		case *github.PushEvent:
			out = append(out, "push:"+p.GetRef())
		case *github.CreateEvent:
			out = append(out, "create:"+p.GetRefType()+":"+p.GetRef())
		case *github.DeleteEvent:
			out = append(out, "delete:"+p.GetRefType()+":"+p.GetRef())
		default:
			out = append(out, h.Event)
		}
	}
	return out
}

// gtGit runs the git CLI in a working directory with a private HOME, no
// credential helper and no prompts.
type gtGit struct {
	t   *testing.T
	dir string
	env []string
}

func gtNewGit(t *testing.T, login string) *gtGit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	return &gtGit{t: t, dir: t.TempDir(), env: append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_AUTHOR_NAME="+login, "GIT_AUTHOR_EMAIL="+login+"@users.noreply.forge.local",
		"GIT_COMMITTER_NAME="+login, "GIT_COMMITTER_EMAIL="+login+"@users.noreply.forge.local")}
}

// gtURL is a clone URL with credentials in it.
func gtURL(env *forgetest.Env, fullName, user, token string) string {
	u := env.GitURL(fullName)
	if user == "" && token == "" {
		return u
	}
	return strings.Replace(u, "://", "://"+user+":"+token+"@", 1)
}

// try runs git (with the credential helper disabled) and returns its
// combined output.
func (g *gtGit) try(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "credential.helper=", "-c", "protocol.version=2"}, args...)...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func (g *gtGit) run(args ...string) string {
	g.t.Helper()
	out, err := g.try(args...)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

// write writes files into the working directory.
func (g *gtGit) write(files map[string]string) {
	g.t.Helper()
	for p, c := range files {
		full := filepath.Join(g.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
}

// commit writes files, commits them all and returns the new head.
func (g *gtGit) commit(msg string, files map[string]string) string {
	g.t.Helper()
	g.write(files)
	g.run("add", "-A")
	g.run("commit", "--quiet", "-m", msg)
	return g.run("rev-parse", "HEAD")
}

// gtRefs lists the repository's refs as the forge's git sees them.
func gtRefs(t *testing.T, env *forgetest.Env, fullName string) map[string]string {
	t.Helper()
	repo, ok := env.Forge.Repo(fullName)
	if !ok {
		t.Fatalf("no repository %s", fullName)
	}
	out, err := exec.Command("git", "--git-dir", repo.Path, "for-each-ref", "--format=%(objectname) %(refname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok {
			m[name] = sha
		}
	}
	return m
}
