package forge_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// pullsHook is one webhook the test receiver got.
type pullsHook struct {
	Event, Action string
	Body          []byte
}

// pullsHooks receives the forge's webhooks, checking their signatures.
type pullsHooks struct {
	mu  sync.Mutex
	got []pullsHook
}

func newPullsHooks(t *testing.T, env *forgetest.Env) *pullsHooks {
	t.Helper()
	h := &pullsHooks{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, env.WebhookSecret)
		mac.Write(body)
		if got, want := r.Header.Get("X-Hub-Signature-256"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
			t.Errorf("webhook %s: signature %q, want %q", r.Header.Get("X-GitHub-Event"), got, want)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var a struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal(body, &a)
		h.mu.Lock()
		h.got = append(h.got, pullsHook{Event: r.Header.Get("X-GitHub-Event"), Action: a.Action, Body: body})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	// Cleanups run last-first: deliveries end before the receiver closes.
	t.Cleanup(func() { env.WaitDeliveries(t) })
	env.Forge.SetWebhook(srv.URL, env.WebhookSecret)
	return h
}

// of returns the hooks of an event (and action, unless "").
func (h *pullsHooks) of(event, action string) []pullsHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []pullsHook
	for _, x := range h.got {
		if x.Event == event && (action == "" || x.Action == action) {
			out = append(out, x)
		}
	}
	return out
}

func (h *pullsHooks) reset() {
	h.mu.Lock()
	h.got = nil
	h.mu.Unlock()
}

// pullsFixture is a forge with the standard cast, a webhook receiver and
// a main branch with two files.
type pullsFixture struct {
	env                        *forgetest.Env
	ctx                        context.Context
	alice, bob, carol, mallory *github.Client
	hooks                      *pullsHooks
	repo                       string
	path                       string
	mainSHA                    string
}

var pullsBaseFiles = map[string]string{"README.md": "hello\n", "pkg/a.yaml": "a: 1\nb: 2\nc: 3\n"}

func newPullsFixture(t *testing.T) *pullsFixture {
	t.Helper()
	env := forgetest.New(t)
	fx := &pullsFixture{env: env, ctx: context.Background(),
		alice: env.Client(forgetest.AliceToken), bob: env.Client(forgetest.BobToken),
		carol: env.Client(forgetest.CarolToken), mallory: env.Client(forgetest.MalloryToken),
		repo: env.CatalogRepo}
	r, _ := env.Forge.Repo(fx.repo)
	fx.path = r.Path
	fx.hooks = newPullsHooks(t, env)
	fx.mainSHA = fx.commit(t, "main", pullsBaseFiles, "Initial commit", "alice")
	env.WaitDeliveries(t)
	fx.hooks.reset()
	return fx
}

func (fx *pullsFixture) account(t *testing.T, login string) *forge.Account {
	t.Helper()
	a, ok := fx.env.Forge.Account(login)
	if !ok {
		t.Fatalf("no account %s", login)
	}
	return a
}

// commit commits files (the whole tree) on branch as author, and
// announces the move as a push would.
func (fx *pullsFixture) commit(t *testing.T, branch string, files map[string]string, msg, author string) string {
	t.Helper()
	before, _ := fx.resolve(branch)
	if before == "" {
		before = forge.PullsZeroSHA
	}
	content := map[string][]byte{}
	for k, v := range files {
		content[k] = []byte(v)
	}
	sha, err := fx.env.Forge.CommitFiles(fx.repo, branch, content, msg, fx.account(t, author))
	if err != nil {
		t.Fatal(err)
	}
	fx.env.Forge.PullsRefsChanged(fx.repo, fx.account(t, author),
		forge.RefChange{Ref: "refs/heads/" + branch, Before: before, After: sha})
	return sha
}

// branch creates branch at rev, as a push would.
func (fx *pullsFixture) branch(t *testing.T, name, rev, pusher string) string {
	t.Helper()
	sha, err := fx.resolve(rev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fx.env.Forge.PullsSetRef(fx.repo, "refs/heads/"+name, sha); err != nil {
		t.Fatal(err)
	}
	fx.env.Forge.PullsRefsChanged(fx.repo, fx.account(t, pusher),
		forge.RefChange{Ref: "refs/heads/" + name, Before: forge.PullsZeroSHA, After: sha})
	return sha
}

// deleteBranch deletes a branch, as a push would.
func (fx *pullsFixture) deleteBranch(t *testing.T, name, pusher string) {
	t.Helper()
	old, err := fx.env.Forge.PullsSetRef(fx.repo, "refs/heads/"+name, forge.PullsZeroSHA)
	if err != nil {
		t.Fatal(err)
	}
	fx.env.Forge.PullsRefsChanged(fx.repo, fx.account(t, pusher),
		forge.RefChange{Ref: "refs/heads/" + name, Before: old, After: forge.PullsZeroSHA})
}

func (fx *pullsFixture) resolve(rev string) (string, error) {
	out, err := exec.Command("git", "-C", fx.path, "rev-parse", "--verify", "--quiet", rev+"^{commit}").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// git runs git in the forge's bare repository.
func (fx *pullsFixture) git(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", fx.path}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// openPull opens a pull request from head into main as client.
func (fx *pullsFixture) openPull(t *testing.T, c *github.Client, head, title string) *github.PullRequest {
	t.Helper()
	pr, _, err := c.PullRequests.Create(fx.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String(title), Head: github.String(head), Base: github.String("main"),
		Body: github.String("Body of " + title)})
	if err != nil {
		t.Fatalf("create pull %s: %v", head, err)
	}
	return pr
}

// withFiles is base with overrides ("" deletes a file).
func pullsWithFiles(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// wantStatus checks that err is a GitHub error answer with status code.
func pullsWantStatus(t *testing.T, what string, resp *github.Response, err error, code int) *github.ErrorResponse {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %d", what, code)
	}
	if resp == nil || resp.StatusCode != code {
		got := 0
		if resp != nil {
			got = resp.StatusCode
		}
		t.Fatalf("%s: status %d (%v), want %d", what, got, err, code)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er
	}
	return nil
}
