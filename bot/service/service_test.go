package service

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/settings"
)

// TestServeEmbeddedEndToEnd starts `porchbot serve` with no App
// credentials: the embedded forge comes up seeded from testdata, the bot
// registers as its App, a git push by a user reaches the bot as signed
// webhooks, and shutdown drains every accepted event.
func TestServeEmbeddedEndToEnd(t *testing.T) {
	dataDir := t.TempDir()
	s, err := settings.Parse([]string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--forge-seed", "../../testdata/forge/seed.yaml"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !s.Embedded() {
		t.Fatal("no credentials must mean the embedded forge")
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	var welcome bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := Start(ctx, s, log, &welcome, "test")
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = srv.Close(context.Background())
		}
	}()
	forgeURL := srv.Embedded.Forge.BaseURL()
	for _, want := range []string{"alice-token", forgeURL + "/acme/catalog.git", "git push"} {
		if !strings.Contains(welcome.String(), want) {
			t.Errorf("welcome text lacks %q:\n%s", want, welcome.String())
		}
	}
	botURL := strings.TrimSuffix(srv.HookURL, "/api/github/hook")
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(botURL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}

	// A user clones the seeded catalog and pushes a draft branch.
	work := t.TempDir()
	remote := strings.Replace(forgeURL, "http://", "http://alice:alice-token@", 1) + "/acme/catalog.git"
	git(t, work, "clone", "-q", remote, "catalog")
	repo := filepath.Join(work, "catalog")
	if _, err := os.Stat(filepath.Join(repo, "basens", "Kptfile")); err != nil {
		t.Fatalf("seeded package missing: %v", err)
	}
	git(t, repo, "switch", "-q", "-c", "drafts/basens/w1")
	if err := os.WriteFile(filepath.Join(repo, "basens", "extra.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".")
	git(t, repo, "-c", "user.name=alice", "-c", "user.email=alice@example.com", "commit", "-q", "-m", "extra")
	git(t, repo, "push", "-q", "origin", "HEAD")

	waitCtx, waitCancel := context.WithTimeout(ctx, 30*time.Second)
	defer waitCancel()
	if err := srv.Embedded.Forge.WaitDeliveries(waitCtx); err != nil {
		t.Fatal(err)
	}
	events := map[string]int{}
	for _, d := range srv.Embedded.Forge.Deliveries() {
		if d.Status != http.StatusAccepted {
			t.Fatalf("delivery %s (%s) answered %d %s", d.ID, d.Event, d.Status, d.Err)
		}
		events[d.Event]++
	}
	for _, want := range []string{"push", "check_suite"} {
		if events[want] == 0 {
			t.Fatalf("no %s delivery reached the bot: %v", want, events)
		}
	}

	// Shutdown drains: every accepted event was handled.
	if err := srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed = true
	for ev, n := range events {
		got := testutil.ToFloat64(srv.Metrics.Deliveries.WithLabelValues(ev, "processed"))
		if int(got) != n {
			t.Errorf("%s: %v processed, %d delivered", ev, got, n)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "credential.helper=", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
