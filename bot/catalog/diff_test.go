package catalog_test

import (
	"net/http"
	"strings"
	"testing"
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
