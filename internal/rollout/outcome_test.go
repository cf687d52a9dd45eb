package rollout

import (
	"testing"
	"time"
)

// TestPlanOutcomes: each downstream's outcome agrees with its wave's
// counts.
func TestPlanOutcomes(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := Spec{Package: "upf", RequireDeployment: true, Waves: []Wave{{Name: "all"}}}
	ds := []Downstream{{Repo: "acme/a", Package: "upf", At: 2}, {Repo: "acme/b", Package: "upf", At: 2}, {Repo: "acme/c", Package: "upf", At: 1}}
	rec := Record{Package: "upf"}
	rec.Observe(Key("acme/a", "upf"), "flux", Report{Revision: 2, State: Success, At: now})
	rec.Observe(Key("acme/b", "upf"), "flux", Report{Revision: 2, State: Failure, At: now})
	p := Decide(spec, 2, ds, rec, now)
	want := []Outcome{
		{Repo: "acme/a", Package: "upf", Wave: "all", Merged: true, Healthy: true},
		{Repo: "acme/b", Package: "upf", Wave: "all", Merged: true, Failed: true},
		{Repo: "acme/c", Package: "upf", Wave: "all"},
	}
	if len(p.Downstreams) != len(want) {
		t.Fatalf("outcomes %+v, want %+v", p.Downstreams, want)
	}
	for i := range want {
		if p.Downstreams[i] != want[i] {
			t.Errorf("outcome %d: %+v, want %+v", i, p.Downstreams[i], want[i])
		}
	}
}
