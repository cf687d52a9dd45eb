package catalog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/porchbot/porchbot/internal/browsertest"
)

// signInBrowser opens the catalog signed out, which leads to the forge's
// authorize page, and fills its form as login.
func signInBrowser(t *testing.T, ctx context.Context, w *world, login string) {
	t.Helper()
	var at string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(w.catalog+"/"),
		chromedp.WaitVisible(`#login`, chromedp.ByID),
		chromedp.Location(&at),
		chromedp.SendKeys(`#login`, login, chromedp.ByID),
		chromedp.SendKeys(`#token`, login+"-token", chromedp.ByID),
		chromedp.Click(`#authorize`, chromedp.ByID),
		chromedp.WaitVisible(`#viewer`, chromedp.ByID),
	); err != nil {
		t.Fatalf("sign in as %s: %v", login, err)
	}
	if !strings.HasPrefix(at, w.forge+"/login/oauth/authorize?") {
		t.Fatalf("signed out, the catalog led to %s, not the forge's authorize page", at)
	}
}

// TestCatalogInBrowser drives headless Chromium against `porchbot serve` on
// its embedded forge: sign in, browse to a package, open a revision diff;
// and a user without access sees nothing of the private repository.
func TestCatalogInBrowser(t *testing.T) {
	exe := browsertest.Chromium(t)
	w := startWorld(t)

	alice := browsertest.Browser(t, exe, 2*time.Minute)
	signInBrowser(t, alice, w, "alice")
	var who, repos, revisions, diffTitle, diff, url string
	if err := chromedp.Run(alice,
		chromedp.Text(`#viewer`, &who, chromedp.ByID),
		chromedp.Text(`#repositories`, &repos, chromedp.ByID),
		chromedp.Click(`a[href="/repos/acme/catalog"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#packages`, chromedp.ByID),
		chromedp.Click(`a[href="/repos/acme/catalog/packages/basens"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#revisions`, chromedp.ByID),
		chromedp.Text(`#revisions`, &revisions, chromedp.ByID),
		chromedp.Click(`a.diff`, chromedp.ByQuery),
		chromedp.WaitVisible(`#diff-title`, chromedp.ByID),
		chromedp.Location(&url),
		chromedp.Text(`#diff-title`, &diffTitle, chromedp.ByID),
		chromedp.Text(`pre.diff`, &diff, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("alice browsing: %v", err)
	}
	if who != "alice" || !strings.Contains(repos, "acme/catalog") || strings.Contains(repos, "globex") {
		t.Errorf("alice's repositories page: viewer %q, repositories %q", who, repos)
	}
	if !strings.Contains(revisions, "basens/v2") || !strings.Contains(revisions, "basens/v1") {
		t.Errorf("basens revisions: %q", revisions)
	}
	if !strings.HasSuffix(url, "/repos/acme/catalog/diff/basens?from=1&to=2") || diffTitle != "basens: v1 → v2" ||
		!strings.Contains(diff, "-     tier: bronze") || !strings.Contains(diff, "+     tier: gold") {
		t.Errorf("diff page at %s: %q\n%s", url, diffTitle, diff)
	}

	dave := browsertest.Browser(t, exe, 2*time.Minute)
	signInBrowser(t, dave, w, "dave")
	var home, page string
	if err := chromedp.Run(dave,
		chromedp.Text(`main`, &home, chromedp.ByQuery),
		chromedp.Navigate(w.catalog+"/repos/acme/catalog/packages/basens"),
		chromedp.WaitVisible(`#message`, chromedp.ByID),
		chromedp.Text(`body`, &page, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("dave browsing: %v", err)
	}
	if !strings.Contains(home, "acme/blueprints") || strings.Contains(home, "acme/catalog") || strings.Contains(home, "globex") {
		t.Errorf("dave's repositories page shows what he cannot read, or not the public one:\n%s", home)
	}
	if !strings.Contains(page, "cannot read it") || strings.Contains(page, "basens/v") || strings.Contains(page, "base namespace") {
		t.Errorf("dave on the private package's page:\n%s", page)
	}
}
