package github

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// fakeClock records requested sleeps and returns at once, advancing Now by
// the slept duration.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1_700_000_000, 0)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// step answers one request of a scripted server.
type step func(w http.ResponseWriter, r *http.Request)

// script is a fake GitHub answering the n-th request with the n-th step,
// repeating the last step once the script runs out.
type script struct {
	mu     sync.Mutex
	steps  []step
	calls  int
	bodies []string
}

func newScriptServer(t *testing.T, steps ...step) (*httptest.Server, *script) {
	t.Helper()
	s := &script{steps: steps}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		i := s.calls
		s.calls++
		s.bodies = append(s.bodies, string(body))
		if i >= len(s.steps) {
			i = len(s.steps) - 1
		}
		st := s.steps[i]
		s.mu.Unlock()
		st(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

func (s *script) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *script) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func status(code int) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"message":"`+http.StatusText(code)+`"}`)
	}
}

func repeat(n int, s step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// quietLogger discards log output.
func quietLogger() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// testTransport builds a Transport with a fake clock and no logging noise.
func testTransport(opts TransportOptions) (*Transport, *fakeClock) {
	clock := newFakeClock()
	opts.Clock = clock
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	return NewTransport(opts), clock
}

func do(t *testing.T, tr http.RoundTripper, method, url, body string) (*http.Response, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if resp != nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}
