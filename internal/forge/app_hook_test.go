package forge_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// flakyReceiver is the App's webhook receiver, answering what the test
// sets and recording the GUID and body of each delivery it hears.
type flakyReceiver struct {
	mu     sync.Mutex
	status int
	got    []struct{ guid, body string }
}

func (h *flakyReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, struct{ guid, body string }{r.Header.Get("X-GitHub-Delivery"), string(body)})
	w.WriteHeader(h.status)
}

func (h *flakyReceiver) answer(status int) {
	h.mu.Lock()
	h.status = status
	h.mu.Unlock()
}

func (h *flakyReceiver) heard() []struct{ guid, body string } {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(h.got[:0:0], h.got...)
}

// TestAppHookDeliveries: the App's deliveries are recorded newest first
// with GitHub's fields, a dropped one and one answered 503 as failed;
// they are paged by cursor, filtered by status, read in full and
// redelivered (same GUID and payload, a new id, redelivery true), with the
// App's JWT only.
func TestAppHookDeliveries(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	rcv := &flakyReceiver{status: http.StatusNoContent}
	srv := httptest.NewServer(rcv)
	t.Cleanup(srv.Close)
	env.Forge.SetWebhook(srv.URL, env.WebhookSecret)
	key, err := jwt.ParseRSAPrivateKeyFromPEM(env.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	app := env.Client(appJWT(t, key, strconv.FormatInt(forgetest.AppID, 10), 10*time.Minute))
	alice := env.Client(forgetest.AliceToken)
	repo, _ := env.Forge.Repo("acme/catalog")

	// Three issues opened: the first delivery lost, the second answered
	// 503, the third delivered.
	open := func(title string) {
		t.Helper()
		if _, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String(title)}); err != nil {
			t.Fatal(err)
		}
		env.WaitDeliveries(t)
	}
	env.Forge.SetFaults(forge.Faults{DropWebhooks: 1})
	open("lost")
	rcv.answer(http.StatusServiceUnavailable)
	open("refused")
	rcv.answer(http.StatusNoContent)
	open("heard")
	if n := len(rcv.heard()); n != 2 {
		t.Fatalf("the receiver heard %d deliveries, want 2", n)
	}

	all, _, err := app.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: 100})
	if err != nil || len(all) != 3 {
		t.Fatalf("deliveries: %v %v", all, err)
	}
	for i, want := range []struct {
		status string
		code   int
	}{{"OK", http.StatusNoContent}, {"Invalid HTTP Response: 503", 503}, {"failed to connect to host", 0}} {
		d := all[i]
		if d.GetStatus() != want.status || d.GetStatusCode() != want.code || d.GetEvent() != "issues" || d.GetAction() != "opened" ||
			d.GetInstallationID() != env.Installation.ID || d.GetRepositoryID() != repo.ID || d.GetRedelivery() ||
			d.GetGUID() == "" || d.DeliveredAt == nil || (i > 0 && d.GetID() >= all[i-1].GetID()) {
			t.Errorf("delivery %d (newest first): %v, want %s %d", i, d, want.status, want.code)
		}
	}

	// Paged one by one through the Link header's cursor, the same list.
	opts := &github.ListCursorOptions{PerPage: 1}
	var walked []int64
	for {
		page, resp, err := app.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page {
			walked = append(walked, d.GetID())
		}
		if resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
	}
	if len(walked) != 3 || walked[0] != all[0].GetID() || walked[2] != all[2].GetID() {
		t.Fatalf("walked %v, listed %v", walked, all)
	}

	// status=failure is GitHub's 400–599: the 503, not the lost one.
	req, err := app.NewRequest(http.MethodGet, "app/hook/deliveries?status=failure", nil)
	if err != nil {
		t.Fatal(err)
	}
	var failures []*github.HookDelivery
	if _, err := app.Do(ctx, req, &failures); err != nil || len(failures) != 1 || failures[0].GetID() != all[1].GetID() {
		t.Fatalf("status=failure: %v %v", failures, err)
	}

	// The lost one read in full, then redelivered.
	lost := all[2]
	full, _, err := app.Apps.GetHookDelivery(ctx, lost.GetID())
	if err != nil || full.GetGUID() != lost.GetGUID() || full.GetRequest().GetRawPayload() == nil {
		t.Fatalf("delivery: %v %v", full, err)
	}
	if _, _, err := app.Apps.RedeliverHookDelivery(ctx, lost.GetID()); err != nil {
		var accepted *github.AcceptedError
		if !errors.As(err, &accepted) {
			t.Fatal(err)
		}
	}
	env.WaitDeliveries(t)
	heard := rcv.heard()
	if len(heard) != 3 || heard[2].guid != lost.GetGUID() {
		t.Fatalf("redelivery heard: %+v, want GUID %s", heard, lost.GetGUID())
	}
	again, _, err := app.Apps.ListHookDeliveries(ctx, nil)
	if err != nil || len(again) != 4 || !again[0].GetRedelivery() || again[0].GetGUID() != lost.GetGUID() ||
		again[0].GetStatus() != "OK" || again[0].GetID() <= all[0].GetID() {
		t.Fatalf("after the redelivery: %v %v", again, err)
	}
	if _, _, err := app.Apps.GetHookDelivery(ctx, 987654321); err == nil {
		t.Fatal("an unknown delivery was found")
	}

	// Only the App's JWT: not a user, not an installation.
	for name, c := range map[string]*github.Client{"user": alice, "installation": env.Client(env.InstallationToken(t))} {
		_, resp, err := c.Apps.ListHookDeliveries(ctx, nil)
		chkWantStatus(t, name+" lists", resp, err, http.StatusUnauthorized)
		_, resp, err = c.Apps.RedeliverHookDelivery(ctx, lost.GetID())
		chkWantStatus(t, name+" redelivers", resp, err, http.StatusUnauthorized)
	}
}
