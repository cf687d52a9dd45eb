package catalog

// Rollout is a package's rollout in waves (docs/rollouts.md) as porchbot
// plans it: the revision rolled out, the rollout's state, and each
// downstream's outcome. Viewer.Filter leaves out the downstreams in
// repositories the viewer cannot read: the counts a viewer sees are over
// those they can.
type Rollout struct {
	Revision int
	State    string
	// RequireDeployment: a downstream meets the rule once deployed and
	// healthy (else once merged).
	RequireDeployment bool
	Downstreams       []RolloutDownstream
}

// RolloutDownstream is one downstream package's outcome in a rollout.
type RolloutDownstream struct {
	Repository, Package     string
	Merged, Healthy, Failed bool
}

// Total is how many downstreams the rollout targets (of those shown).
func (r Rollout) Total() int { return len(r.Downstreams) }

// Healthy is how many met the rule.
func (r Rollout) Healthy() int { return r.count(func(d RolloutDownstream) bool { return d.Healthy }) }

// Failed is how many reported a failed deployment.
func (r Rollout) Failed() int { return r.count(func(d RolloutDownstream) bool { return d.Failed }) }

// count is how many downstreams are.
func (r Rollout) count(are func(RolloutDownstream) bool) int {
	n := 0
	for _, d := range r.Downstreams {
		if are(d) {
			n++
		}
	}
	return n
}

// filterRollout is r without the downstreams in repositories reads
// refuses (nil stays nil).
func filterRollout(r *Rollout, reads func(repo string) bool) *Rollout {
	if r == nil {
		return nil
	}
	cp := *r
	cp.Downstreams = make([]RolloutDownstream, 0, len(r.Downstreams))
	for _, d := range r.Downstreams {
		if reads(d.Repository) {
			cp.Downstreams = append(cp.Downstreams, d)
		}
	}
	return &cp
}
