package bot

import (
	"slices"
	"sort"
	"testing"

	"github.com/porchbot/porchbot/bot/handlers"
	"github.com/porchbot/porchbot/bot/ingress"
)

// TestAppHandlesTheDefaultEvents: the App's event table handles exactly
// the events of handlers.DefaultHandlers, which
// TestAppManifestMatchesHandlers keeps equal to app.yaml's.
func TestAppHandlesTheDefaultEvents(t *testing.T) {
	names := func(h ingress.Handlers) []string {
		var out []string
		for name := range h {
			out = append(out, name)
		}
		sort.Strings(out)
		return out
	}
	app, want := names((&App{Comments: &Commands{}}).Handlers()), names(handlers.DefaultHandlers())
	if !slices.Equal(app, want) {
		t.Fatalf("the App handles %v, the default table %v", app, want)
	}
}
