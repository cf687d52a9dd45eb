package github

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/porchbot/porchbot/internal/metrics"
)

func TestRetry5xxBurstThenSuccess(t *testing.T) {
	srv, sc := newScriptServer(t, append(repeat(3, status(502)), status(200))...)
	tr, clock := testTransport(TransportOptions{})
	tr.rand = func() float64 { return 0.5 }

	resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	if got := sc.Calls(); got != 4 {
		t.Errorf("server calls = %d, want 4", got)
	}
	// Full jitter at 0.5 of 500ms·2ⁿ: the waits grow.
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	if got := clock.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
}

func TestBackoffJitteredAndBounded(t *testing.T) {
	tr, _ := testTransport(TransportOptions{BaseDelay: 500 * time.Millisecond, MaxDelay: 3 * time.Second})
	ceilings := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	for n, ceiling := range ceilings {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := tr.backoff(n)
			if d < 0 || d >= ceiling {
				t.Fatalf("backoff(%d) = %v, want in [0, %v)", n, d, ceiling)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("backoff(%d) not jittered: %v", n, seen)
		}
	}
	tr.rand = func() float64 { return 0.999999 }
	if d := tr.backoff(80); d > 3*time.Second {
		t.Errorf("backoff(80) = %v, above the cap", d)
	}
}

func TestRetry5xxExhausted(t *testing.T) {
	srv, sc := newScriptServer(t, repeat(10, status(500))...)
	tr, clock := testTransport(TransportOptions{})

	resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != 500 {
		t.Errorf("status = %d, want the last 500", resp.StatusCode)
	}
	if got := sc.Calls(); got != 1+DefaultMaxRetries {
		t.Errorf("server calls = %d, want %d", got, 1+DefaultMaxRetries)
	}
	sleeps := clock.Sleeps()
	if len(sleeps) != DefaultMaxRetries {
		t.Fatalf("sleeps = %v, want %d", sleeps, DefaultMaxRetries)
	}
	for n, d := range sleeps {
		if ceiling := DefaultBaseDelay << n; d < 0 || d >= ceiling {
			t.Errorf("sleep %d = %v, want in [0, %v)", n, d, ceiling)
		}
	}

	// Through go-github the exhausted 500 is an error.
	c := testClients(t, srv.URL, tr)
	_, _, err = c.Token(context.Background(), "pat").Repositories.Get(context.Background(), "acme", "widgets")
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("go-github error = %v, want a 500 error", err)
	}
}

func TestRetryReplaysPatchBody(t *testing.T) {
	srv, sc := newScriptServer(t, status(503), status(502), status(200))
	tr, _ := testTransport(TransportOptions{})

	const body = `{"title":"new title"}`
	// No GetBody: the transport must buffer the body itself.
	req, _ := http.NewRequest(http.MethodPatch, srv.URL+"/api/v3/repos/acme/widgets/issues/7", io.NopCloser(strings.NewReader(body)))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("PATCH: %v", err)
	}
	resp.Body.Close()
	if got := sc.Bodies(); !slices.Equal(got, []string{body, body, body}) {
		t.Errorf("bodies = %q, want the body three times", got)
	}

	// With GetBody (as go-github sends).
	srv2, sc2 := newScriptServer(t, status(504), status(200))
	if _, err := do(t, tr, http.MethodPatch, srv2.URL+"/api/v3/repos/acme/widgets/issues/7", body); err != nil {
		t.Fatalf("PATCH: %v", err)
	}
	if got := sc2.Bodies(); !slices.Equal(got, []string{body, body}) {
		t.Errorf("bodies = %q, want the body twice", got)
	}
}

func TestPostRetryPolicy(t *testing.T) {
	for _, tc := range []struct {
		code  int
		calls int
	}{
		{500, 1}, // may have been processed: not retried
		{502, 2},
		{503, 2},
		{504, 2},
	} {
		srv, sc := newScriptServer(t, status(tc.code), status(201))
		tr, _ := testTransport(TransportOptions{})
		if _, err := do(t, tr, http.MethodPost, srv.URL+"/api/v3/repos/acme/widgets/issues/1/comments", `{"body":"hi"}`); err != nil {
			t.Fatalf("POST after %d: %v", tc.code, err)
		}
		if got := sc.Calls(); got != tc.calls {
			t.Errorf("POST after %d: server calls = %d, want %d", tc.code, got, tc.calls)
		}
	}
}

// stallServer stalls its first request until the client gives up on it (or
// the test ends), and answers the others at once.
func stallServer(t *testing.T) (*httptest.Server, *script) {
	release := make(chan struct{})
	srv, sc := newScriptServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
		status(200))
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	return srv, sc
}

func TestAttemptTimeoutRetried(t *testing.T) {
	srv, sc := stallServer(t)
	tr, clock := testTransport(TransportOptions{AttemptTimeout: 100 * time.Millisecond})

	resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets/pulls/3", "")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != 200 {
		t.Errorf("status = %d, want 200", resp.StatusCode)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("read body after retry: %v", err)
	}
	if got := sc.Calls(); got != 2 {
		t.Errorf("server calls = %d, want 2", got)
	}
	if got := len(clock.Sleeps()); got != 1 {
		t.Errorf("sleeps = %d, want 1", got)
	}
}

func TestAttemptTimeoutPostNotRetried(t *testing.T) {
	srv, sc := stallServer(t)
	tr, _ := testTransport(TransportOptions{AttemptTimeout: 100 * time.Millisecond})

	_, err := do(t, tr, http.MethodPost, srv.URL+"/api/v3/repos/acme/widgets/issues/1/comments", `{"body":"hi"}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("POST error = %v, want a deadline error", err)
	}
	if got := sc.Calls(); got != 1 {
		t.Errorf("server calls = %d, want 1: a POST that may have been processed is not resent", got)
	}
}

func TestDialErrorRetriedEvenForPost(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens: connection refused

	var mu sync.Mutex
	var statuses []int
	tr, clock := testTransport(TransportOptions{OnCall: func(endpoint, method string, status int) {
		mu.Lock()
		statuses = append(statuses, status)
		mu.Unlock()
	}})
	_, err := do(t, tr, http.MethodPost, url+"/api/v3/repos/acme/widgets/issues", `{"title":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "giving up after 4 retries") {
		t.Fatalf("error = %v, want giving up after 4 retries", err)
	}
	if !slices.Equal(statuses, []int{0, 0, 0, 0, 0}) {
		t.Errorf("attempts = %v, want five failed attempts", statuses)
	}
	if got := len(clock.Sleeps()); got != 4 {
		t.Errorf("sleeps = %d, want 4", got)
	}
}

func TestNoRetryOnceContextDone(t *testing.T) {
	srv, sc := newScriptServer(t, status(502))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, clock := testTransport(TransportOptions{OnCall: func(string, string, int) { cancel() }})

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", nil)
	_, err := (&http.Client{Transport: tr}).Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if got := sc.Calls(); got != 1 {
		t.Errorf("server calls = %d, want 1", got)
	}
	if got := clock.Sleeps(); len(got) != 0 {
		t.Errorf("sleeps = %v, want none", got)
	}
}

func TestMutationSpacing(t *testing.T) {
	srv, _ := newScriptServer(t, status(200))
	tr, clock := testTransport(TransportOptions{MutationSpacing: time.Second})
	base := srv.URL + "/api/v3/repos/acme/widgets"

	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/issues/1/comments"},
		{http.MethodGet, "/pulls/1"}, // reads are not spaced
		{http.MethodPatch, "/pulls/1"},
		{http.MethodPost, "/app/installations/9/access_tokens"}, // exempt
		{http.MethodDelete, "/issues/1/labels/bug"},
		{http.MethodPut, "/pulls/1/merge"},
	} {
		url := base + c.path
		if strings.HasPrefix(c.path, "/app/") {
			url = srv.URL + "/api/v3" + c.path
		}
		if _, err := do(t, tr, c.method, url, `{}`); err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
	}
	want := []time.Duration{time.Second, time.Second, time.Second}
	if got := clock.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}

	// Spacing 0 disables it.
	tr0, clock0 := testTransport(TransportOptions{})
	for range 3 {
		if _, err := do(t, tr0, http.MethodPost, base+"/issues/1/comments", `{}`); err != nil {
			t.Fatal(err)
		}
	}
	if got := clock0.Sleeps(); len(got) != 0 {
		t.Errorf("sleeps without spacing = %v, want none", got)
	}
}

func TestMutationSpacingConcurrent(t *testing.T) {
	srv, _ := newScriptServer(t, status(200))
	tr, clock := testTransport(TransportOptions{MutationSpacing: time.Second})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := do(t, tr, http.MethodPost, srv.URL+"/api/v3/repos/acme/widgets/issues", `{}`); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// The fake clock only advances by sleeping, so every mutation after the
	// first waits the full second.
	if got := clock.Sleeps(); !slices.Equal(got, repeatDuration(4, time.Second)) {
		t.Errorf("sleeps = %v, want 4×1s", got)
	}
}

func repeatDuration(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func TestMetricsAndOnCall(t *testing.T) {
	srv, _ := newScriptServer(t,
		status(502),
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Ratelimit-Remaining", "4321")
			w.Header().Set("X-Ratelimit-Resource", "core")
			w.WriteHeader(200)
		},
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Ratelimit-Remaining", "17")
			w.Header().Set("X-Ratelimit-Resource", "search")
			w.WriteHeader(200)
		})
	m := metrics.New()
	type call struct {
		endpoint, method string
		status           int
	}
	var mu sync.Mutex
	var calls []call
	tr, _ := testTransport(TransportOptions{Metrics: m, OnCall: func(e, meth string, s int) {
		mu.Lock()
		calls = append(calls, call{e, meth, s})
		mu.Unlock()
	}})

	if _, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets/pulls/12/reviews?per_page=100", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/search/issues?q=x", ""); err != nil {
		t.Fatal(err)
	}
	const ep = "/repos/{owner}/{repo}/pulls/{number}/reviews"
	want := []call{{ep, "GET", 502}, {ep, "GET", 200}, {"/search/issues", "GET", 200}}
	if !slices.Equal(calls, want) {
		t.Errorf("OnCall = %v, want %v", calls, want)
	}
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{ep, "GET", "502"}, 1},
		{[]string{ep, "GET", "200"}, 1},
		{[]string{"/search/issues", "GET", "200"}, 1},
	} {
		if got := counterValue(t, m, c.labels...); got != c.want {
			t.Errorf("github_api_calls_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if got := gaugeValue(t, m, "core"); got != 4321 {
		t.Errorf("rate limit remaining core = %v, want 4321", got)
	}
	if got := gaugeValue(t, m, "search"); got != 17 {
		t.Errorf("rate limit remaining search = %v, want 17", got)
	}
}

func counterValue(t *testing.T, m *metrics.Metrics, labels ...string) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.GitHubCalls.WithLabelValues(labels...).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetCounter().GetValue()
}

func gaugeValue(t *testing.T, m *metrics.Metrics, resource string) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.RateLimitRemaining.WithLabelValues(resource).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetGauge().GetValue()
}
