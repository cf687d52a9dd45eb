package catalog_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCatalogRevisionDiff: the package page links each revision to its
// diff with the previous one, computed from git, and the diff page shows
// the lines that changed.
func TestCatalogRevisionDiff(t *testing.T) {
	w := startWorld(t)
	alice := newViewer(t)
	alice.signIn(w, "alice")
	_, pkg, _ := alice.get(w.catalog + "/repos/acme/catalog/packages/basens")
	const link = `href="/repos/acme/catalog/diff/basens?from=1&amp;to=2"`
	if !strings.Contains(pkg, link) {
		t.Fatalf("basens page lacks the v1…v2 diff link:\n%s", pkg)
	}
	status, diff, _ := alice.get(w.catalog + "/repos/acme/catalog/diff/basens?from=1&to=2")
	if status != http.StatusOK {
		t.Fatalf("diff: %d\n%s", status, diff)
	}
	for _, want := range []string{"ns.yaml", "-     tier: bronze", "&#43;     tier: gold", "basens/v1", "basens/v2", ">+1<", "−1"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff page lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "Kptfile") {
		t.Errorf("the diff lists the unchanged Kptfile:\n%s", diff)
	}
	for _, bad := range []string{"from=1&to=9", "from=x&to=2"} {
		if status, _, _ := alice.get(w.catalog + "/repos/acme/catalog/diff/basens?" + bad); status != http.StatusNotFound {
			t.Errorf("diff %s: %d, want 404", bad, status)
		}
	}
}

// TestCatalogShowsANewRevision: a publish's events make the catalog reload
// the repository's view, so the next page shows the new revision without
// waiting for the view to age.
func TestCatalogShowsANewRevision(t *testing.T) {
	w := startWorld(t)
	alice := newViewer(t)
	alice.signIn(w, "alice")
	if _, pkg, _ := alice.get(w.catalog + "/repos/acme/catalog/packages/basens"); !strings.Contains(pkg, "basens/v2") || strings.Contains(pkg, "basens/v3") {
		t.Fatalf("basens before the third publish:\n%s", pkg)
	}
	cat := w.clone(t, "alice", "acme/catalog")
	write(t, cat, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base\n  labels:\n    tier: silver\n")
	w.push(t, cat, "acme/catalog", "basens: silver tier")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Svc.Catalog.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, pkg, _ := alice.get(w.catalog + "/repos/acme/catalog/packages/basens"); !strings.Contains(pkg, "basens/v3") ||
		!strings.Contains(pkg, `diff/basens?from=2&amp;to=3`) {
		t.Errorf("basens after the third publish:\n%s", pkg)
	}
}
