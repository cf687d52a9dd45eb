package catalog_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRepositoriesPageLoadsItsViews (#26 §4): the first view after
// signing in, with no repository loaded yet, starts their loads and comes
// back by itself (a refresh, "loading…"); once loaded, the page shows
// their counts and does not refresh.
func TestRepositoriesPageLoadsItsViews(t *testing.T) {
	w := startWorld(t)
	alice := newViewer(t)
	home := alice.signIn(w, "alice")
	if !strings.Contains(home, "loading…") || !strings.Contains(home, `http-equiv="refresh"`) {
		t.Fatalf("the first repositories page:\n%s", home)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Svc.Catalog.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	_, again, _ := alice.get(w.catalog + "/")
	if strings.Contains(again, "loading…") || strings.Contains(again, `http-equiv="refresh"`) {
		t.Fatalf("the repositories page once loaded:\n%s", again)
	}
}
