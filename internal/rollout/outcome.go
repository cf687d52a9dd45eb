package rollout

// Outcome is what one downstream has reached in a plan.
type Outcome struct {
	Repo, Package, Wave string
	// Merged: it holds the plan's revision. Healthy: it met the rule
	// (merged, and its deployment healthy when the rollout requires one).
	// Failed: its deployment of the revision failed (not acknowledged).
	// Excluded: the last offer could not be made.
	Merged, Healthy, Failed, Excluded bool
}

// outcomeOf is downstream d's outcome in wave, from its progress pr and
// health h at the plan's revision.
func outcomeOf(d Downstream, wave string, pr *Progress, merged bool, h Health, requireDeployment bool) Outcome {
	return Outcome{Repo: d.Repo, Package: d.Package, Wave: wave, Merged: merged,
		Healthy:  merged && (!requireDeployment || h.Met()),
		Failed:   h.State == Failure,
		Excluded: !merged && pr != nil && pr.Excluded != ""}
}
