package forge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestCommitStatuses(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	bob := env.Client(forgetest.BobToken)
	inst := env.Client(env.InstallationToken(t))

	_, resp, err := env.Client(forgetest.CarolToken).Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String("success")})
	chkWantStatus(t, "read-only user", resp, err, http.StatusForbidden)
	_, resp, err = env.Client(forgetest.MalloryToken).Repositories.ListStatuses(ctx, "acme", "catalog", sha, nil)
	chkWantStatus(t, "no access", resp, err, http.StatusNotFound)
	_, resp, err = bob.Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String("great")})
	chkWantStatus(t, "bad state", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = bob.Repositories.CreateStatus(ctx, "acme", "catalog", strings.Repeat("ab", 20), &github.RepoStatus{State: github.String("success")})
	chkWantStatus(t, "unknown sha", resp, err, http.StatusUnprocessableEntity)

	// A user's hook subscribed to "status" hears it; the App, which does
	// not subscribe to it, does not.
	app := newPullsHooks(t, env)
	rcv := newHookReceiver(t, "s3cret")
	t.Cleanup(func() { env.WaitDeliveries(t) })
	if _, _, err := env.Client(forgetest.AliceToken).Repositories.CreateHook(ctx, "acme", "catalog", &github.Hook{Events: []string{"status"},
		Config: &github.HookConfig{URL: github.String(rcv.url), ContentType: github.String("json"), Secret: github.String("s3cret")}}); err != nil {
		t.Fatal(err)
	}

	st, _, err := bob.Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String("pending"), Context: github.String("ci/lint")})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetCreator().GetLogin() != "bob" || st.GetContext() != "ci/lint" || st.GetID() == 0 {
		t.Fatalf("created %+v", st)
	}
	env.WaitDeliveries(t)
	calls := rcv.calls()
	if len(calls) != 2 || calls[1].event != "status" {
		t.Fatalf("hook deliveries: %+v", calls)
	}
	var ev github.StatusEvent
	if err := json.Unmarshal(calls[1].body, &ev); err != nil || ev.GetSHA() != sha || ev.GetState() != "pending" ||
		len(ev.Branches) != 1 || ev.Branches[0].GetName() != "main" || ev.GetCommit().GetSHA() != sha {
		t.Fatalf("status payload: %+v %v", ev, err)
	}
	if n := len(app.of("status", "")); n != 0 {
		t.Fatalf("the App got %d status webhooks it does not subscribe to", n)
	}
	for _, s := range []struct{ state, ctx string }{{"success", "ci/lint"}, {"success", "ci/test"}} {
		if _, _, err := inst.Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String(s.state), Context: github.String(s.ctx)}); err != nil {
			t.Fatal(err)
		}
	}
	comb, _, err := bob.Repositories.GetCombinedStatus(ctx, "acme", "catalog", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if comb.GetState() != "success" || comb.GetTotalCount() != 2 || comb.GetSHA() != sha {
		t.Fatalf("combined %s total %d sha %s", comb.GetState(), comb.GetTotalCount(), comb.GetSHA())
	}
	if _, _, err := bob.Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String("error"), Context: github.String("ci/test")}); err != nil {
		t.Fatal(err)
	}
	comb, _, err = bob.Repositories.GetCombinedStatus(ctx, "acme", "catalog", sha, nil)
	if err != nil || comb.GetState() != "failure" {
		t.Fatalf("combined after error: %v %v", comb.GetState(), err)
	}

	// The list is every status, newest first, paginated with Link.
	page1, resp, err := bob.Repositories.ListStatuses(ctx, "acme", "catalog", "main", &github.ListOptions{PerPage: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(page1) != 3 || page1[0].GetState() != "error" || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1: %d statuses, first %s, next %d last %d", len(page1), page1[0].GetState(), resp.NextPage, resp.LastPage)
	}
	page2, _, err := bob.Repositories.ListStatuses(ctx, "acme", "catalog", "main", &github.ListOptions{PerPage: 3, Page: 2})
	if err != nil || len(page2) != 1 || page2[0].GetState() != "pending" {
		t.Fatalf("page 2: %v %v", page2, err)
	}

	// A repeated read with the ETag is 304.
	req, _ := bob.NewRequest(http.MethodGet, "repos/acme/catalog/commits/main/status", nil)
	resp, err = bob.Do(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, _ = bob.Do(ctx, req, nil)
	if resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
	_, resp, err = bob.Repositories.GetCombinedStatus(ctx, "acme", "catalog", "no-such-branch", nil)
	chkWantStatus(t, "unknown ref", resp, err, http.StatusNotFound)
}
