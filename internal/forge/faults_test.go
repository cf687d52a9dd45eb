package forge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// setFaults configures faults over HTTP, as a test harness outside the
// process would.
func setFaults(t *testing.T, env *forgetest.Env, fl map[string]any) {
	t.Helper()
	body, _ := json.Marshal(fl)
	resp, err := http.Post(env.Forge.BaseURL()+"/_forge/faults", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /_forge/faults: %d", resp.StatusCode)
	}
}

func clearFaults(t *testing.T, env *forgetest.Env) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, env.Forge.BaseURL()+"/_forge/faults", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /_forge/faults: %d", resp.StatusCode)
	}
}

// getRepo calls the API with a fresh go-github client (go-github keeps
// rate-limit state per client and would refuse calls itself).
func getRepo(env *forgetest.Env) (*github.Response, error) {
	_, resp, err := env.Client(forgetest.AliceToken).Repositories.Get(context.Background(), "acme", "catalog")
	return resp, err
}

func TestFaultLatency(t *testing.T) {
	env := forgetest.New(t)
	setFaults(t, env, map[string]any{"latencyMs": 30})
	if _, err := getRepo(env); err != nil {
		t.Fatalf("a slow call still succeeds: %v", err)
	}
	clearFaults(t, env)
	if got := env.Forge.Faults(); got != (forge.Faults{}) {
		t.Fatalf("after DELETE: %+v", got)
	}
}

func TestFaultServerErrors(t *testing.T) {
	env := forgetest.New(t)
	setFaults(t, env, map[string]any{"serverErrors": 2, "serverErrorStatus": 503})
	for i := 0; i < 2; i++ {
		resp, err := getRepo(env)
		var er *github.ErrorResponse
		if !errors.As(err, &er) || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("call %d: want 503, got %v", i, err)
		}
	}
	if _, err := getRepo(env); err != nil {
		t.Fatalf("third call: %v", err)
	}
	setFaults(t, env, map[string]any{"serverErrors": 1})
	if resp, _ := getRepo(env); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("default 5xx: %d", resp.StatusCode)
	}
	// Only paths under the prefix fail.
	setFaults(t, env, map[string]any{"serverErrors": 1, "pathPrefix": "/repos/acme/catalog/releases"})
	if _, err := getRepo(env); err != nil {
		t.Fatalf("outside the prefix: %v", err)
	}
	_, resp, err := env.Client(forgetest.AliceToken).Repositories.ListReleases(context.Background(), "acme", "catalog", nil)
	if err == nil || resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("under the prefix: %v", err)
	}
	// A rate of failures, repeatable with its seed.
	run := func() []bool {
		setFaults(t, env, map[string]any{"serverErrorRate": 0.5, "seed": 7})
		var out []bool
		for i := 0; i < 20; i++ {
			_, err := getRepo(env)
			out = append(out, err != nil)
		}
		return out
	}
	a, b := run(), run()
	fails := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different failures: %v vs %v", a, b)
		}
		if a[i] {
			fails++
		}
	}
	if fails == 0 || fails == 20 {
		t.Fatalf("rate 0.5 failed %d of 20", fails)
	}
}

func TestFaultPrimaryRateLimit(t *testing.T) {
	env := forgetest.New(t)
	start := time.Now()
	setFaults(t, env, map[string]any{"primaryRateLimit": 1})
	_, err := getRepo(env)
	var rle *github.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("403 primary: want *github.RateLimitError, got %T %v", err, err)
	}
	if rle.Response.StatusCode != http.StatusForbidden || rle.Rate.Remaining != 0 || rle.Rate.Limit != 5000 ||
		rle.Rate.Reset.Time.Before(start.Add(50*time.Second)) || rle.Rate.Reset.Time.After(start.Add(70*time.Second)) {
		t.Fatalf("403 primary: %+v", rle)
	}
	if _, err := getRepo(env); err != nil {
		t.Fatalf("after the limited call: %v", err)
	}

	setFaults(t, env, map[string]any{"primaryRateLimit": 1, "primaryStatus": 429, "primaryResetSeconds": 120})
	resp, err := getRepo(env)
	if err == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("429 primary: %v", err)
	}
	reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if resp.Header.Get("X-RateLimit-Remaining") != "0" || reset < start.Add(110*time.Second).Unix() || resp.Rate.Remaining != 0 {
		t.Fatalf("429 primary headers: %v", resp.Header)
	}
}

func TestFaultSecondaryRateLimit(t *testing.T) {
	env := forgetest.New(t)
	setFaults(t, env, map[string]any{"secondaryRateLimit": 1, "retryAfterSeconds": 7})
	_, err := getRepo(env)
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) {
		t.Fatalf("secondary with Retry-After: want *github.AbuseRateLimitError, got %T %v", err, err)
	}
	if abuse.Response.StatusCode != http.StatusForbidden || abuse.RetryAfter == nil || *abuse.RetryAfter != 7*time.Second {
		t.Fatalf("secondary with Retry-After: %+v", abuse)
	}
	setFaults(t, env, map[string]any{"secondaryRateLimit": 1})
	_, err = getRepo(env)
	if !errors.As(err, &abuse) || abuse.RetryAfter != nil || abuse.Response.Header.Get("Retry-After") != "" {
		t.Fatalf("secondary without Retry-After: %T %v", err, err)
	}
	if _, err := getRepo(env); err != nil {
		t.Fatalf("after: %v", err)
	}
	// The counters are visible while they run down.
	setFaults(t, env, map[string]any{"secondaryRateLimit": 3})
	_, _ = getRepo(env)
	resp, err := http.Get(env.Forge.BaseURL() + "/_forge/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var fl forge.Faults
	if err := json.NewDecoder(resp.Body).Decode(&fl); err != nil || fl.SecondaryRateLimit != 2 {
		t.Fatalf("GET /_forge/faults: %+v %v", fl, err)
	}
}

func TestFaultLostWebhooks(t *testing.T) {
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"a": "1\n"})
	inst := env.Client(env.InstallationToken(t))
	create := func(n int) {
		for i := 0; i < n; i++ {
			if _, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{
				Name: "r" + strconv.Itoa(i), HeadSHA: sha}); err != nil {
				t.Fatal(err)
			}
		}
		env.WaitDeliveries(t)
	}

	setFaults(t, env, map[string]any{"dropWebhookEvery": 3})
	create(6)
	dels := env.Forge.Deliveries()
	if len(dels) != 6 {
		t.Fatalf("deliveries: %d", len(dels))
	}
	for i, d := range dels {
		if want := (i+1)%3 == 0; d.Dropped != want || d.Dropped == (d.Status == http.StatusNoContent) {
			t.Errorf("delivery %d: dropped %v status %d", i+1, d.Dropped, d.Status)
		}
	}
	if got := len(hooks.all()); got != 4 {
		t.Fatalf("received %d, want 4", got)
	}

	setFaults(t, env, map[string]any{"dropWebhooks": 2})
	create(3)
	dels = env.Forge.Deliveries()[6:]
	if !dels[0].Dropped || !dels[1].Dropped || dels[2].Dropped || len(hooks.all()) != 5 {
		t.Fatalf("dropWebhooks 2: %+v, received %d", dels, len(hooks.all()))
	}
}
