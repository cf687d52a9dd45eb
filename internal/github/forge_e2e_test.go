package github

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// These tests drive the transport and the App authentication against the
// local forge, with the forge's own fault injection, over loopback HTTP.

type forgeRig struct {
	env     *forgetest.Env
	clock   *fakeClock
	clients *Clients
}

func newForgeRig(t *testing.T) *forgeRig {
	t.Helper()
	env := forgetest.New(t)
	rig := &forgeRig{env: env, clock: &fakeClock{now: time.Now()}}
	opts := DefaultTransportOptions()
	opts.Clock = rig.clock
	opts.MutationSpacing = 0
	opts.MaxWait = 2 * time.Minute
	c, err := NewClients(ClientsOptions{BaseURL: env.Forge.BaseURL(),
		App:              &AppCredentials{AppID: forgetest.AppID, PrivateKeyPEM: env.PrivateKeyPEM},
		TransportOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	rig.clients = c
	return rig
}

func getRepo(t *testing.T, r *forgeRig) error {
	t.Helper()
	ctx := context.Background()
	c, err := r.clients.Installation(ctx, r.env.Installation.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Repositories.Get(ctx, "acme", "catalog")
	return err
}

func TestForgePrimaryRateLimitIsWaitedOut(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			rig := newForgeRig(t)
			if err := getRepo(t, rig); err != nil { // token minted, repo reachable
				t.Fatal(err)
			}
			rig.env.Forge.SetFaults(forge.Faults{PrimaryRateLimit: 1, PrimaryStatus: status, PrimaryResetSeconds: 30,
				PathPrefix: "/repos/"})
			if err := getRepo(t, rig); err != nil {
				t.Fatalf("want success after waiting for the reset, got %v", err)
			}
			sleeps := rig.clock.Sleeps()
			if len(sleeps) != 1 || sleeps[0] < 25*time.Second || sleeps[0] > 35*time.Second {
				t.Fatalf("want one wait of about 30s (until reset), got %v", sleeps)
			}
		})
	}
}

func TestForgePrimaryRateLimitFarResetFails(t *testing.T) {
	rig := newForgeRig(t)
	if err := getRepo(t, rig); err != nil {
		t.Fatal(err)
	}
	rig.env.Forge.SetFaults(forge.Faults{PrimaryRateLimit: 1, PrimaryResetSeconds: 3600, PathPrefix: "/repos/"})
	err := getRepo(t, rig)
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("want *RateLimitError, got %T %v", err, err)
	}
	if len(rig.clock.Sleeps()) != 0 {
		t.Fatalf("must not sleep for a far reset: %v", rig.clock.Sleeps())
	}
}

func TestForgeSecondaryRateLimit(t *testing.T) {
	t.Run("Retry-After", func(t *testing.T) {
		rig := newForgeRig(t)
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
		rig.env.Forge.SetFaults(forge.Faults{SecondaryRateLimit: 1, RetryAfterSeconds: 7, PathPrefix: "/repos/"})
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
		if s := rig.clock.Sleeps(); len(s) != 1 || s[0] != 7*time.Second {
			t.Fatalf("want exactly the Retry-After (7s), got %v", s)
		}
	})
	t.Run("no Retry-After", func(t *testing.T) {
		rig := newForgeRig(t)
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
		rig.env.Forge.SetFaults(forge.Faults{SecondaryRateLimit: 2, PathPrefix: "/repos/"})
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
		s := rig.clock.Sleeps()
		if len(s) != 2 || s[0] < 60*time.Second || s[1] <= s[0] {
			t.Fatalf("want at least 60s then longer, got %v", s)
		}
	})
}

func TestForge5xxBurstIsRetried(t *testing.T) {
	rig := newForgeRig(t)
	if err := getRepo(t, rig); err != nil {
		t.Fatal(err)
	}
	before := rig.env.Forge.Stats().Snapshot()["GET /repos/{owner}/{repo}"]
	rig.env.Forge.SetFaults(forge.Faults{ServerErrors: 3, ServerErrorStatus: 502, PathPrefix: "/repos/"})
	if err := getRepo(t, rig); err != nil {
		t.Fatal(err)
	}
	// The forge counts only calls that reach a handler; faults answer before.
	if after := rig.env.Forge.Stats().Snapshot()["GET /repos/{owner}/{repo}"]; after-before != 4 {
		t.Fatalf("want 3 failed attempts and 1 success counted, got %d", after-before)
	}
	if s := rig.clock.Sleeps(); len(s) != 3 {
		t.Fatalf("want 3 backoff waits, got %v", s)
	}
}

func TestForgeInstallationTokenRefreshAtExpiry(t *testing.T) {
	rig := newForgeRig(t)
	tokens := func() int64 {
		return rig.env.Forge.Stats().Snapshot()["POST /app/installations/{id:[0-9]+}/access_tokens"]
	}
	for i := 0; i < 3; i++ {
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
	}
	if n := tokens(); n != 1 {
		t.Fatalf("a fresh token must be cached: %d token requests for 3 calls", n)
	}
	// Tokens expiring within a minute are refreshed before use.
	rig.env.Forge.SetInstallationTokenTTL(30 * time.Second)
	rig.clients.ForgetInstallation(rig.env.Installation.ID)
	for i := 0; i < 2; i++ {
		if err := getRepo(t, rig); err != nil {
			t.Fatal(err)
		}
	}
	if n := tokens(); n != 1+2 {
		t.Fatalf("short-lived tokens must be refreshed on use: %d token requests", n)
	}
}

func TestForgeInstallationIDForRepo(t *testing.T) {
	rig := newForgeRig(t)
	id, err := rig.clients.InstallationIDForRepo(context.Background(), "acme/catalog")
	if err != nil || id != rig.env.Installation.ID {
		t.Fatalf("got %d, %v; want %d", id, err, rig.env.Installation.ID)
	}
}
