package rollout

import (
	"testing"
	"time"
)

// TestPlanTotals: the totals add up the waves' counts; a failure counts
// once, in its wave.
func TestPlanTotals(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := Spec{Package: "upf", RequireDeployment: true, Waves: []Wave{
		{Name: "canary", Select: Selector{Repositories: []string{"acme/a", "acme/b"}}},
		{Name: "rest"},
	}}
	ds := []Downstream{
		{Repo: "acme/a", Package: "upf", At: 2},
		{Repo: "acme/b", Package: "upf", At: 2},
		{Repo: "acme/c", Package: "upf", At: 1},
	}
	rec := Record{Package: "upf"}
	rec.Observe(Key("acme/a", "upf"), "flux", Report{Revision: 2, State: Success, At: now})
	rec.Observe(Key("acme/b", "upf"), "flux", Report{Revision: 2, State: Failure, At: now})
	p := Decide(spec, 2, ds, rec, now)
	if got, want := p.Totals(), (Totals{Downstreams: 3, Merged: 2, Healthy: 1, Failed: 1}); got != want {
		t.Fatalf("Totals = %+v, want %+v (plan %+v)", got, want, p.Waves)
	}
}
