// Package browsertest starts the system's headless Chromium for the tests
// that drive porchbot's pages (the catalog) and the forge's (the
// walkthrough) in a browser. A machine without Chromium skips those
// tests, saying so. Tests only.
package browsertest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumNames are the programs tried, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Chromium is the Chromium on PATH; the test is skipped, saying so, when
// there is none, and under -short (`make test-short`: a browser test is
// end to end).
func Chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED browser test under -short: `make test` runs it")
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skipf("SKIPPED browser test: no Chromium on PATH (tried %s); install one, e.g. `apt-get install -y chromium` (README: browser tests)",
		strings.Join(chromiumNames, ", "))
	return ""
}

// Browser starts a headless Chromium of its own (a fresh profile: no
// cookie shared with another browser) and returns its context, which
// ends after timeout.
func Browser(t *testing.T, exe string, timeout time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// no UserDataDir: the allocator makes a fresh profile of its own and
		// removes it once the browser has exited, as well as it can (its
		// helper processes may outlive it for a moment, writing there; in
		// t.TempDir that failed the test's cleanup)
	}
	// Chromium, started beside a busy test run, now and then exits before
	// it listens ("chrome failed to start", nothing of porchbot's running
	// yet): a browser that did not start is started again, twice at most.
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
		stop := func() {
			cancelTimeout()
			cancelCtx()
			cancelAlloc()
		}
		if err := chromedp.Run(ctx); err != nil { // starts the browser
			stop()
			errs = append(errs, fmt.Sprintf("attempt %d: %v", attempt, err))
			continue
		}
		for _, e := range errs {
			t.Logf("start %s: %s", exe, e)
		}
		t.Cleanup(stop)
		return ctx
	}
	t.Fatalf("start %s:\n%s", exe, strings.Join(errs, "\n"))
	return nil
}
