package github

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// primaryLimited answers code with x-ratelimit-remaining: 0 and a reset
// resetIn after the clock's now.
func primaryLimited(clock *fakeClock, code int, resetIn time.Duration) step {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Ratelimit-Limit", "5000")
		h.Set("X-Ratelimit-Remaining", "0")
		h.Set("X-Ratelimit-Used", "5000")
		h.Set("X-Ratelimit-Resource", "core")
		h.Set("X-Ratelimit-Reset", strconv.FormatInt(clock.Now().Add(resetIn).Unix(), 10))
		h.Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`)
	}
}

// secondaryLimited answers code with GitHub's secondary-limit body and, if
// retryAfter is not empty, a Retry-After header.
func secondaryLimited(code int, retryAfter string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("X-Ratelimit-Remaining", "4000")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
	}
}

func TestPrimaryLimitShortResetWaits(t *testing.T) {
	for _, code := range []int{403, 429} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			tr, clock := testTransport(TransportOptions{})
			srv, sc := newScriptServer(t, primaryLimited(clock, code, 30*time.Second), status(200))

			resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets/pulls", "")
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			if resp.StatusCode != 200 {
				t.Errorf("status = %d, want 200", resp.StatusCode)
			}
			if got := sc.Calls(); got != 2 {
				t.Errorf("server calls = %d, want 2", got)
			}
			// Until the reset, plus a second for its whole-second rounding.
			if got, want := clock.Sleeps(), []time.Duration{31 * time.Second}; !slices.Equal(got, want) {
				t.Errorf("sleeps = %v, want %v", got, want)
			}
		})
	}
}

func TestPrimaryLimitLongResetFails(t *testing.T) {
	for _, code := range []int{403, 429} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			tr, clock := testTransport(TransportOptions{})
			srv, sc := newScriptServer(t, primaryLimited(clock, code, 45*time.Minute), status(200))
			reset := clock.Now().Add(45 * time.Minute)

			_, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets/pulls", "")
			var rle *RateLimitError
			if !errors.As(err, &rle) {
				t.Fatalf("error = %v, want *RateLimitError", err)
			}
			if !rle.Reset.Equal(reset) || rle.Resource != "core" || rle.StatusCode != code {
				t.Errorf("RateLimitError = %+v, want reset %v, resource core, status %d", rle, reset, code)
			}
			if msg := rle.Error(); !strings.Contains(msg, reset.UTC().Format(time.RFC3339)) || !strings.Contains(msg, "45m0s") {
				t.Errorf("message %q does not say when the limit resets", msg)
			}
			if got := clock.Sleeps(); len(got) != 0 {
				t.Errorf("sleeps = %v, want none", got)
			}
			if got := sc.Calls(); got != 1 {
				t.Errorf("server calls = %d, want 1", got)
			}
		})
	}
}

func TestPrimaryLimitRetriedOnlyOnce(t *testing.T) {
	tr, clock := testTransport(TransportOptions{})
	srv, sc := newScriptServer(t, primaryLimited(clock, 403, 10*time.Second))

	_, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	var rle *RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("error = %v, want *RateLimitError", err)
	}
	if got := sc.Calls(); got != 2 {
		t.Errorf("server calls = %d, want 2", got)
	}
	if got := clock.Sleeps(); !slices.Equal(got, []time.Duration{11 * time.Second}) {
		t.Errorf("sleeps = %v, want [11s]", got)
	}
}

func TestPrimaryLimitThroughGoGitHub(t *testing.T) {
	tr, clock := testTransport(TransportOptions{})
	srv, _ := newScriptServer(t, primaryLimited(clock, 403, time.Hour))
	c := testClients(t, srv.URL, tr)

	_, _, err := c.Token(context.Background(), "pat").Issues.Get(context.Background(), "acme", "widgets", 1)
	var rle *RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("go-github error = %v (%T), want *RateLimitError in its chain", err, err)
	}
}

func TestSecondaryLimitRetryAfter(t *testing.T) {
	for _, code := range []int{403, 429} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv, sc := newScriptServer(t, secondaryLimited(code, "7"), status(201))
			tr, clock := testTransport(TransportOptions{})

			resp, err := do(t, tr, http.MethodPost, srv.URL+"/api/v3/repos/acme/widgets/issues/1/comments", `{"body":"hi"}`)
			if err != nil {
				t.Fatalf("POST: %v", err)
			}
			if resp.StatusCode != 201 {
				t.Errorf("status = %d, want 201", resp.StatusCode)
			}
			if got := clock.Sleeps(); !slices.Equal(got, []time.Duration{7 * time.Second}) {
				t.Errorf("sleeps = %v, want exactly Retry-After [7s]", got)
			}
			if got := sc.Calls(); got != 2 {
				t.Errorf("server calls = %d, want 2", got)
			}
		})
	}
}

func TestSecondaryLimitRetryAfterTooLong(t *testing.T) {
	srv, sc := newScriptServer(t, secondaryLimited(403, "600"), status(200))
	tr, clock := testTransport(TransportOptions{})

	_, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	var sle *SecondaryRateLimitError
	if !errors.As(err, &sle) {
		t.Fatalf("error = %v, want *SecondaryRateLimitError", err)
	}
	if sle.RetryAfter != 10*time.Minute || !strings.Contains(sle.Message, "secondary rate limit") {
		t.Errorf("SecondaryRateLimitError = %+v", sle)
	}
	if got := clock.Sleeps(); len(got) != 0 {
		t.Errorf("sleeps = %v, want none (longer than MaxWait)", got)
	}
	if got := sc.Calls(); got != 1 {
		t.Errorf("server calls = %d, want 1", got)
	}
}

func TestSecondaryLimitWithoutRetryAfterBacksOff(t *testing.T) {
	srv, sc := newScriptServer(t, secondaryLimited(403, ""))
	tr, clock := testTransport(TransportOptions{MaxWait: time.Hour})

	_, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	var sle *SecondaryRateLimitError
	if !errors.As(err, &sle) {
		t.Fatalf("error = %v, want *SecondaryRateLimitError", err)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute}
	if got := clock.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
	if sle.Retries != DefaultMaxRetries || sle.RetryAfter != 16*time.Minute {
		t.Errorf("SecondaryRateLimitError = %+v, want 4 retries, next wait 16m", sle)
	}
	if got := sc.Calls(); got != 1+DefaultMaxRetries {
		t.Errorf("server calls = %d, want %d", got, 1+DefaultMaxRetries)
	}
}

func TestSecondaryLimitWithoutRetryAfterDefaultMaxWait(t *testing.T) {
	srv, _ := newScriptServer(t, secondaryLimited(403, ""), secondaryLimited(403, ""), status(200))
	tr, clock := testTransport(TransportOptions{})

	_, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	var sle *SecondaryRateLimitError
	if !errors.As(err, &sle) {
		t.Fatalf("error = %v, want *SecondaryRateLimitError", err)
	}
	// 60s fits the default MaxWait; the next 120s does not.
	if got := clock.Sleeps(); !slices.Equal(got, []time.Duration{time.Minute}) {
		t.Errorf("sleeps = %v, want [1m0s]", got)
	}
}

func TestSecondaryLimitThenSuccess(t *testing.T) {
	srv, _ := newScriptServer(t, secondaryLimited(429, ""), status(200))
	tr, clock := testTransport(TransportOptions{})

	resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET = %v, %v; want 200", resp, err)
	}
	if got := clock.Sleeps(); !slices.Equal(got, []time.Duration{time.Minute}) {
		t.Errorf("sleeps = %v, want at least a minute", got)
	}
}

func TestPlain403NotRetried(t *testing.T) {
	const body = `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`
	srv, sc := newScriptServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Remaining", "4999")
		w.WriteHeader(403)
		_, _ = io.WriteString(w, body)
	})
	tr, clock := testTransport(TransportOptions{})

	resp, err := do(t, tr, http.MethodGet, srv.URL+"/api/v3/repos/acme/widgets", "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 403 || string(got) != body {
		t.Errorf("response = %d %q, want the untouched 403", resp.StatusCode, got)
	}
	if sc.Calls() != 1 || len(clock.Sleeps()) != 0 {
		t.Errorf("calls = %d, sleeps = %v; want one call, no sleep", sc.Calls(), clock.Sleeps())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"30", 30 * time.Second, true},
		{" 0 ", 0, true},
		{"-5", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"soon", 0, false},
	} {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
