package rollout

// Totals are a plan's counts over all its waves: what the package index
// and the catalog say of a rollout in one line.
type Totals struct {
	// Downstreams are every downstream the rollout targets, excluded ones
	// included; Merged hold the plan's revision; Healthy met the rule
	// (merged, and healthy when the rollout requires a deployment);
	// Failed reported a failed deployment not acknowledged.
	Downstreams, Merged, Healthy, Failed int
}

// Totals adds up the counts of p's waves.
func (p Plan) Totals() Totals {
	var t Totals
	for _, w := range p.Waves {
		t.Downstreams += w.Total
		t.Merged += w.Merged
		t.Healthy += w.Healthy
		t.Failed += len(w.Failures)
	}
	return t
}
