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
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// hookCall is one delivery a user's own receiver got.
type hookCall struct {
	event, guid, hookID string
	body                []byte
}

// hookReceiver is a user's webhook receiver checking GitHub's signature
// with its own secret.
type hookReceiver struct {
	mu   sync.Mutex
	got  []hookCall
	url  string
	fail bool // answer 500
}

func newHookReceiver(t *testing.T, secret string) *hookReceiver {
	t.Helper()
	rcv := &hookReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if got, want := r.Header.Get("X-Hub-Signature-256"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
			t.Errorf("hook %s: signature %q, want %q", r.Header.Get("X-GitHub-Event"), got, want)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		rcv.got = append(rcv.got, hookCall{event: r.Header.Get("X-GitHub-Event"), guid: r.Header.Get("X-GitHub-Delivery"),
			hookID: r.Header.Get("X-GitHub-Hook-ID"), body: body})
		if rcv.fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	rcv.url = srv.URL
	return rcv
}

func (rcv *hookReceiver) calls() []hookCall {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return append([]hookCall(nil), rcv.got...)
}

func TestRepositoryHooks(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	app := newPullsHooks(t, env) // the App's own delivery, as today
	rcv := newHookReceiver(t, "s3cret")
	t.Cleanup(func() { env.WaitDeliveries(t) })
	alice := env.Client(forgetest.AliceToken)
	newHook := func(url string) *github.Hook {
		return &github.Hook{Config: &github.HookConfig{URL: github.String(url), ContentType: github.String("json"),
			Secret: github.String("s3cret")}, Events: []string{"push", "issue_comment"}}
	}

	_, resp, err := env.Client(forgetest.BobToken).Repositories.CreateHook(ctx, "acme", "catalog", newHook(rcv.url))
	chkWantStatus(t, "writer", resp, err, http.StatusNotFound)
	_, resp, err = env.Client(env.InstallationToken(t)).Repositories.ListHooks(ctx, "acme", "catalog", nil)
	chkWantStatus(t, "installation", resp, err, http.StatusNotFound)
	_, resp, err = env.Client(forgetest.MalloryToken).Repositories.ListHooks(ctx, "acme", "catalog", nil)
	chkWantStatus(t, "stranger", resp, err, http.StatusNotFound)
	_, resp, err = alice.Repositories.CreateHook(ctx, "acme", "catalog", &github.Hook{Config: &github.HookConfig{}})
	chkWantStatus(t, "no url", resp, err, http.StatusUnprocessableEntity)

	hook, _, err := alice.Repositories.CreateHook(ctx, "acme", "catalog", newHook(rcv.url))
	if err != nil {
		t.Fatal(err)
	}
	if hook.GetID() == 0 || !hook.GetActive() || hook.GetConfig().GetSecret() != "********" || len(hook.Events) != 2 {
		t.Fatalf("created %+v config %+v", hook, hook.GetConfig())
	}
	_, resp, err = alice.Repositories.CreateHook(ctx, "acme", "catalog", newHook(rcv.url))
	chkWantStatus(t, "same url twice", resp, err, http.StatusUnprocessableEntity)
	hooks, _, err := alice.Repositories.ListHooks(ctx, "acme", "catalog", nil)
	if err != nil || len(hooks) != 1 || hooks[0].GetID() != hook.GetID() {
		t.Fatalf("list: %v %v", hooks, err)
	}

	// A push reaches the hook (signed with its secret, without the App's
	// installation) and the App alike; "create" is not subscribed.
	if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/feature"),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)
	calls := rcv.calls()
	if len(calls) != 2 || calls[0].event != "ping" || calls[1].event != "push" || calls[1].hookID != strconv.FormatInt(hook.GetID(), 10) {
		t.Fatalf("hook deliveries: %+v", calls)
	}
	var push map[string]any
	if err := json.Unmarshal(calls[1].body, &push); err != nil || push["ref"] != "refs/heads/feature" || push["installation"] != nil {
		t.Fatalf("push payload: %v %v", push, err)
	}
	if len(app.of("push", "")) != 1 || len(app.of("create", "")) != 1 {
		t.Fatalf("the App's deliveries: %d push, %d create", len(app.of("push", "")), len(app.of("create", "")))
	}

	// Deliveries are listed newest first, read in full and redelivered.
	ds, _, err := alice.Repositories.ListHookDeliveries(ctx, "acme", "catalog", hook.GetID(), &github.ListCursorOptions{PerPage: 1})
	if err != nil || len(ds) != 1 || ds[0].GetEvent() != "push" || ds[0].GetStatusCode() != http.StatusNoContent || ds[0].GetStatus() != "OK" {
		t.Fatalf("deliveries page 1: %v %v", ds, err)
	}
	more, _, err := alice.Repositories.ListHookDeliveries(ctx, "acme", "catalog", hook.GetID(), &github.ListCursorOptions{PerPage: 1, Cursor: strconv.FormatInt(ds[0].GetID(), 10)})
	if err != nil || len(more) != 1 || more[0].GetEvent() != "ping" {
		t.Fatalf("deliveries page 2: %v %v", more, err)
	}
	full, _, err := alice.Repositories.GetHookDelivery(ctx, "acme", "catalog", hook.GetID(), ds[0].GetID())
	if err != nil || full.GetRequest().GetHeaders()["X-Github-Event"] != "push" || full.GetGUID() != calls[1].guid {
		t.Fatalf("delivery: %+v %v", full, err)
	}
	if _, _, err := alice.Repositories.RedeliverHookDelivery(ctx, "acme", "catalog", hook.GetID(), ds[0].GetID()); err != nil {
		var accepted *github.AcceptedError
		if !errors.As(err, &accepted) {
			t.Fatal(err)
		}
	}
	env.WaitDeliveries(t)
	calls = rcv.calls()
	if len(calls) != 3 || calls[2].event != "push" || calls[2].guid != calls[1].guid || string(calls[2].body) != string(calls[1].body) {
		t.Fatalf("redelivery: %+v", calls)
	}
	ds, _, err = alice.Repositories.ListHookDeliveries(ctx, "acme", "catalog", hook.GetID(), nil)
	if err != nil || len(ds) != 3 || !ds[0].GetRedelivery() {
		t.Fatalf("after redelivery: %v %v", ds, err)
	}

	// A receiver that fails shows in last_response; an inactive hook
	// hears nothing; a deleted one is gone.
	rcv.mu.Lock()
	rcv.fail = true
	rcv.mu.Unlock()
	if _, err := alice.Repositories.PingHook(ctx, "acme", "catalog", hook.GetID()); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)
	got, _, err := alice.Repositories.GetHook(ctx, "acme", "catalog", hook.GetID())
	if err != nil || got.LastResponse["code"] != float64(http.StatusInternalServerError) {
		t.Fatalf("last response: %v %v", got.LastResponse, err)
	}
	if _, _, err := alice.Repositories.EditHook(ctx, "acme", "catalog", hook.GetID(), &github.Hook{Active: github.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	before := len(rcv.calls())
	if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/other"),
		Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)
	if n := len(rcv.calls()); n != before {
		t.Fatalf("an inactive hook got %d deliveries", n-before)
	}
	if _, err := alice.Repositories.DeleteHook(ctx, "acme", "catalog", hook.GetID()); err != nil {
		t.Fatal(err)
	}
	_, resp, err = alice.Repositories.GetHook(ctx, "acme", "catalog", hook.GetID())
	chkWantStatus(t, "deleted hook", resp, err, http.StatusNotFound)
}
