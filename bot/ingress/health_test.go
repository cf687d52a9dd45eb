package ingress

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func TestReadyzTransitions(t *testing.T) {
	var depErr atomic.Pointer[error]
	ready := func(context.Context) error {
		if err := depErr.Load(); err != nil {
			return *err
		}
		return nil
	}
	ts := newTestServer(t, Options{Ready: ready}, false)
	get := func(path string) answer { return delivery{method: http.MethodGet, path: path}.do(t, ts.url) }
	expect := func(step string, status int, inMessage string) {
		t.Helper()
		a := get(ReadyzPath)
		if a.status != status || !strings.Contains(a.message, inMessage) {
			t.Errorf("%s: readyz = %d %q, want %d containing %q", step, a.status, a.message, status, inMessage)
		}
		if h := get(HealthzPath); h.status != http.StatusOK {
			t.Errorf("%s: healthz = %d, want 200", step, h.status)
		}
	}

	expect("before Start", http.StatusServiceUnavailable, "not started")
	if a := (delivery{event: "push", id: "early", body: pushPayload("org/r", 0)}).do(t, ts.url); a.status != http.StatusServiceUnavailable {
		t.Errorf("delivery before Start: %d, want 503", a.status)
	}

	ts.Start(context.Background())
	dbDown := errors.New("installation token unavailable")
	depErr.Store(&dbDown)
	expect("dependency not ready", http.StatusServiceUnavailable, "installation token unavailable")

	depErr.Store(nil)
	expect("started and ready", http.StatusOK, "ready")

	shutdown(t, ts.Server)
	expect("after Shutdown", http.StatusServiceUnavailable, "shutting down")
}

func TestReadyzWithoutReadyFunc(t *testing.T) {
	ts := newTestServer(t, Options{}, true)
	if a := (delivery{method: http.MethodGet, path: ReadyzPath}).do(t, ts.url); a.status != http.StatusOK {
		t.Errorf("readyz = %d %q, want 200", a.status, a.message)
	}
}

func TestShutdownBeforeStart(t *testing.T) {
	ts := newTestServer(t, Options{}, false)
	shutdown(t, ts.Server)
	ts.Start(context.Background()) // a stopped server stays stopped
	if a := (delivery{method: http.MethodGet, path: ReadyzPath}).do(t, ts.url); a.status != http.StatusServiceUnavailable {
		t.Errorf("readyz after Shutdown then Start = %d, want 503", a.status)
	}
}
