package variant

// A variant's downstream that is behind the wanted revision, or whose
// entry changed (its mutations digest differs), or that adoptExisting
// takes over: an update pull request on porch/update/<pkg>, the path of
// upstream updates (PlanUpdate, ProposeUpdate), with the variant's
// mutations applied to the merged package before its render. Applying them
// again is idempotent, so the variant's own edits never come back as
// conflicts with themselves. The plain update fan-out leaves a package a
// variant owns to it (UpdatePlan.Variant).

import (
	"context"
	"errors"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/variants"
)

// errVariantWaiting: the update branch is pushed and its pull request
// waits for the target's updates.prConcurrentLimit.
var errVariantWaiting = errors.New("waiting for updates.prConcurrentLimit")

// heldByRollout: the upstream package's rollout has not reached the
// target's wave (bot/lifecycle/rollout); the update waits for it.
type heldByRollout struct{ why string }

func (h heldByRollout) Error() string { return "held by the rollout: " + h.why }

// holds asks the upstream's rollout whether it holds update (or
// adoption) a back from upRev.
func (c *Controller) holds(ctx context.Context, upRev updates.UpstreamRevision, a variants.Action) (string, bool) {
	if c.Updates.Hold == nil || a.Kind != variants.Update && a.Kind != variants.Adopt {
		return "", false
	}
	return c.Updates.Hold(ctx, upRev, a.Target, a.Package)
}

// heldNow is holds for a planned action, not carried out (the status of
// /porch variants).
func (c *Controller) heldNow(ctx context.Context, up *core.Session, f *variantFacts, a variants.Action) (string, bool) {
	if c.Updates.Hold == nil || a.Variant < 0 || a.Variant >= len(up.Config.Variants) || a.Kind != variants.Update && a.Kind != variants.Adopt {
		return "", false
	}
	upRev, err := c.upstreamRevision(ctx, up, f, up.Config.Variants[a.Variant].Upstream.Package, a.Revision)
	if err != nil {
		return "", false
	}
	return c.holds(ctx, upRev, a)
}

func (c *Controller) update(ctx context.Context, up, ds *core.Session, f *variantFacts, a variants.Action, v config.Variant) (int, error) {
	upRev, err := c.upstreamRevision(ctx, up, f, v.Upstream.Package, a.Revision)
	if err != nil {
		return 0, err
	}
	if why, held := c.holds(ctx, upRev, a); held {
		return 0, heldByRollout{why: why}
	}
	m, err := c.mutation(ctx, up, ds, v)
	if err != nil {
		return 0, err
	}
	var mutated map[string][]byte
	opts := updates.Options{Render: c.Updates.Render, Mutate: func(files map[string][]byte) (map[string][]byte, error) {
		out, err := variants.Apply(files, m)
		mutated = out
		return out, err
	}}
	plan, err := updates.PlanUpdate(ctx, ds, a.Package, upRev, opts)
	if err != nil {
		return 0, err
	}
	if plan.UpToDate {
		return 0, nil
	}
	plan.Labels = []string{variants.Label}
	plan.Note = variantNote(up, a, v, m, mutated)
	plan.Holds = func(data []byte) bool {
		kf, err := kptfile.Parse(data)
		if err != nil {
			return false
		}
		own, spec := variants.Owned(kf.Kptfile())
		return own != nil && own.SameEntry(a.Owner) && spec == a.Spec
	}
	plan.Pulls = f.pulls
	out, err := updates.ProposeUpdate(ctx, ds, c.Updates.API(ds), plan, c.notesFor(ctx, f, upRev)(plan.From, upRev.Revision))
	if err != nil {
		return 0, err
	}
	if c.Updates.Metrics != nil {
		c.Updates.Metrics.Outcome(out.State)
	}
	switch out.State {
	case updates.Waiting:
		return 0, errVariantWaiting
	case updates.Held:
		return out.PRNumber(), core.RequestErrorf("%s has commits porchbot did not make: not overwritten", mdquote.Code(plan.Branch))
	case updates.Refused:
		return out.PRNumber(), core.RequestErrorf("not updated: %s", plan.Refused)
	case updates.Declined:
		return 0, core.RequestErrorf("the update to %s was closed unmerged", mdquote.Code(upRev.Tag()))
	}
	return out.PRNumber(), nil
}
