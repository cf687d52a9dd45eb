package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/rollout"
)

// The views of a rollout (the upstream's dashboard, its package index)
// are refreshed when what they show changes: after a step or a pause, the
// plan as it stands is compared with the last this process saw of the
// rollout, and Controller.Changed is told when its state, revision, wave
// counts or failures differ. A process that starts has seen nothing: its
// first step of each rollout tells (the views edit nothing when nothing
// changed).

// noteChange tells Changed of p when it differs from the last plan seen
// of pkg's rollout in s's repository.
func (c *Controller) noteChange(ctx context.Context, s *core.Session, pkg string, p *rollout.Plan) {
	if c == nil || c.Changed == nil || p == nil {
		return
	}
	now := shown(p)
	if last, ok := c.seen.Swap(rolloutKey(s, pkg), now); ok && last.(string) == now {
		return
	}
	c.Changed(ctx, s, pkg, p)
}

// rolloutKey names pkg's rollout in s's repository.
func rolloutKey(s *core.Session, pkg string) string {
	return strings.ToLower(s.Repo.FullName()) + "\x00" + pkg
}

// shown is what the views show of p, as a comparable string: state,
// revision, and each wave's state, counts and failing downstreams.
func shown(p *rollout.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s v%d", p.State, p.Revision)
	for _, w := range p.Waves {
		fmt.Fprintf(&b, "\x00%s %s %v %d %d %d %d %d", w.Name, w.State, w.SoakUntil.Unix(), w.Total, w.Merged, w.Healthy, w.InProgress, w.Excluded)
		for _, f := range w.Failures {
			fmt.Fprintf(&b, " %s", rollout.Key(f.Repo, f.Package))
		}
	}
	return b.String()
}
