package e2e

import (
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestUpdateSecondaryRateLimit: GitHub's secondary limit hits the fan-out
// of a publish (the forge refuses a call in a downstream repository with
// 403, Retry-After: 1). porchbot waits as asked and goes on: every
// downstream package gets its update pull request, and no call was
// refused twice.
func TestUpdateSecondaryRateLimit(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	fg := w.svc.Embedded.Forge
	before := refusals(t, w)
	fg.SetFaults(forge.Faults{SecondaryRateLimit: 1, RetryAfterSeconds: 1, PathPrefix: "/repos/acme/edge-2/pulls"})

	v2 := w.publishUpstream("v2", upstreamV2(w))
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v2]
	if left := fg.Faults().SecondaryRateLimit; left != 0 {
		t.Fatalf("the fault was not hit (%d left): the test proves nothing", left)
	}
	for _, r := range downstreamRepos {
		w.checkUpdate(r, v2, v2sha)
		if n := len(w.updatePulls(r)); n != 1 {
			t.Fatalf("%s: %d update pull requests", r, n)
		}
	}
	if got := refusals(t, w) - before; got != 1 {
		t.Fatalf("%v calls refused for the secondary limit, want the one the forge refused once", got)
	}
}

// refusals is the number of GitHub calls the bot saw answered 403.
func refusals(t testing.TB, w *world) float64 {
	t.Helper()
	mfs, err := w.svc.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "porchbot_github_api_calls_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelValue(m, "status") == "403" {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
