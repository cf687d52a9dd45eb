package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/settings"
)

// world is a running porchbot with its embedded forge seeded from
// testdata/forge/seed.yaml (alice admin, bob write and in @acme/platform,
// carol read; acme/catalog holding basens and network/upf; acme/edge-1).
type world struct {
	t   testing.TB
	svc *service.Service
	ctx context.Context
	// clock is the forge's clock as the world moves it (clock_helpers_test.go).
	clock worldClock
	// fastDash: fastDashboards has shortened the dashboard's debounce.
	fastDash bool
}

func newWorld(t testing.TB, extraArgs ...string) *world {
	t.Helper()
	log := logrus.New()
	log.SetOutput(io.Discard)
	if os.Getenv("E2E_LOG") != "" {
		log.SetOutput(os.Stderr)
		log.SetLevel(logrus.DebugLevel)
	}
	return newWorldLogging(t, log, extraArgs...)
}

// newWorldLogging is newWorld with porchbot logging to log.
func newWorldLogging(t testing.TB, log *logrus.Logger, extraArgs ...string) *world {
	t.Helper()
	args := append([]string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0",
		"--data-dir", t.TempDir(), "--forge-seed", "../../testdata/forge/seed.yaml", "--resync-interval", "0",
		// The scenarios predate onboarding and set their repositories up
		// themselves; onboarding_test.go turns it on.
		"--onboarding", "off"}, extraArgs...)
	s, err := settings.Parse(args, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := service.Start(ctx, s, log, io.Discard, "e2e")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = svc.Close(context.Background())
		cancel()
	})
	return &world{t: t, svc: svc, ctx: ctx}
}

// settle waits until the forge has delivered every webhook and the bot
// has handled every event, including the events its own actions caused.
func (w *world) settle() {
	w.t.Helper()
	w.quiesce()
	for _, d := range w.svc.Embedded.Forge.Deliveries() {
		if !d.Dropped && d.Status != http.StatusAccepted && d.Status != http.StatusOK {
			w.t.Fatalf("delivery %s (%s) answered %d %s", d.ID, d.Event, d.Status, d.Err)
		}
	}
}

// quiesce is settle for a test whose webhooks porchbot may refuse: it
// waits for the same quiet and does not look at the answers.
func (w *world) quiesce() {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.ctx, 2*time.Minute)
	defer cancel()
	f := w.svc.Embedded.Forge
	for round := 0; round < 100; round++ {
		if err := f.WaitDeliveries(ctx); err != nil {
			w.t.Fatal(err)
		}
		before := len(f.Deliveries())
		if err := w.svc.Bot.WaitIdle(ctx); err != nil {
			w.t.Fatal(err)
		}
		if err := f.WaitDeliveries(ctx); err != nil {
			w.t.Fatal(err)
		}
		if len(f.Deliveries()) == before {
			return
		}
	}
	w.t.Fatal("the bot and the forge never settled")
}

// client is a go-github client of a seeded user ("alice", ...).
func (w *world) client(user string) *github.Client {
	c, err := github.NewClient(&http.Client{Timeout: 30 * time.Second}).WithAuthToken(user+"-token").
		WithEnterpriseURLs(w.svc.Embedded.Forge.APIURL(), w.svc.Embedded.Forge.BaseURL()+"/api/uploads/")
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// clone clones a repository as user into a fresh directory.
func (w *world) clone(user, repo string) string {
	w.t.Helper()
	dir := filepath.Join(w.t.TempDir(), "work")
	url := strings.Replace(w.svc.Embedded.Forge.BaseURL(), "http://", "http://"+user+":"+user+"-token@", 1) + "/" + repo + ".git"
	w.git("", "clone", "-q", url, dir)
	w.git(dir, "config", "user.name", user)
	w.git(dir, "config", "user.email", user+"@example.com")
	return dir
}

func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "credential.helper="}, args...)...)
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (w *world) write(dir, path, content string) {
	w.t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// checkRun returns the latest check run of name on ref.
func (w *world) checkRun(repo, ref, name string) *github.CheckRun {
	w.t.Helper()
	owner, n, _ := strings.Cut(repo, "/")
	res, _, err := w.client("alice").Checks.ListCheckRunsForRef(w.ctx, owner, n, ref, &github.ListCheckRunsOptions{CheckName: github.String(name)})
	if err != nil {
		w.t.Fatal(err)
	}
	if len(res.CheckRuns) == 0 {
		w.t.Fatalf("no %s check run on %s", name, ref)
	}
	return res.CheckRuns[0]
}

// stats is the forge's count of REST calls as GitHub charges them
// (forge.Counted: answers 304 are free).
func (w *world) stats() map[string]int64 {
	return forge.Counted(w.svc.Embedded.Forge.Stats().Snapshot())
}
