package e2e

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestResyncYieldsWhenTheBudgetIsLow: a draft pushed while webhooks are
// lost waits for the resync. While less than a fifth of the installation's
// hourly REST budget is left (other work spent it), the pass leaves the
// repository alone, says so in a metric, and spends nothing of what is
// left; once the budget resets, the next pass renders the draft.
func TestResyncYieldsWhenTheBudgetIsLow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	head := w.pushDraftUnheard("drafts/basens/quota")

	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	fg.SpendRateBudget(id, 4500) // 500 of 5,000 left: under the floor
	deps := w.resyncDepsAlone()
	before := w.stats()
	w.resyncPass(deps)
	spent := forge.StatsDelta(before, w.stats())
	if run := w.checkRunMaybe(repo, head, "porchbot/render"); run != nil {
		t.Fatalf("the pass rendered %s with a tenth of the budget left", head)
	}
	if y := testutil.ToFloat64(w.svc.Metrics.ResyncYields); y < 1 {
		t.Fatalf("porchbot_resync_yielded_repositories_total = %v", y)
	}
	for k := range spent {
		if strings.HasPrefix(k, "GET /repos/{owner}/{repo}") || strings.HasPrefix(k, "POST /repos/") {
			t.Fatalf("a yielding pass spent calls on the repositories: %v", spent)
		}
	}

	// Once the budget is whole again (as at its reset), the pass does the
	// work.
	fg.SpendRateBudget(id, -4500)
	w.resyncPass(deps)
	if run := w.checkRunMaybe(repo, head, "porchbot/render"); run == nil {
		t.Fatalf("no porchbot/render on %s after the budget reset", head)
	}
}
