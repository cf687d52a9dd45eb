package rollout

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/rollout"
)

// The approvers' hands on a rollout: each is a signed change of the
// record, then a step (a resume or a skip may open the next wave at once).
// Who may use them is the caller's check (the command's: approvers).

// errNoRollout is the answer for a package rolled out all at once.
func errNoRollout(s *core.Session, pkg string) error {
	return core.RequestErrorf("%s has no rollout: its revisions go to every downstream at once. Give it waves under `updates.rollouts` in %s (docs/rollouts.md).",
		mdquote.Code(pkg), mdquote.Code(config.Path))
}

// Pause stops pkg's rollout from proposing anything until a resume.
func (c *Controller) Pause(ctx context.Context, s *core.Session, pkg, by string) (*rollout.Plan, error) {
	if !Has(s, pkg) {
		return nil, errNoRollout(s, pkg)
	}
	now := c.now()
	if _, err := UpdateRecord(ctx, s, pkg, "paused by "+by, now, func(r *rollout.Record) bool {
		if r.Paused != nil {
			return false
		}
		r.Pause(by, now)
		return true
	}); err != nil {
		return nil, err
	}
	plan, err := c.Plan(ctx, s, pkg)
	c.noteChange(ctx, s, pkg, plan)
	return plan, err
}

// Resume runs pkg's rollout again, acknowledging every failure reported
// so far, and steps it.
func (c *Controller) Resume(ctx context.Context, s *core.Session, pkg, by string) (*rollout.Plan, error) {
	if !Has(s, pkg) {
		return nil, errNoRollout(s, pkg)
	}
	now := c.now()
	if _, err := UpdateRecord(ctx, s, pkg, "resumed by "+by, now, func(r *rollout.Record) bool {
		r.Resume(by, now)
		return true
	}); err != nil {
		return nil, err
	}
	return c.Step(ctx, s, pkg)
}

// SkipWave lets the rollout of the latest revision go past wave ("": the
// first wave that has not met the rule), and steps it. It returns the
// wave skipped.
func (c *Controller) SkipWave(ctx context.Context, s *core.Session, pkg, wave, by string) (string, *rollout.Plan, error) {
	if !Has(s, pkg) {
		return "", nil, errNoRollout(s, pkg)
	}
	plan, err := c.Plan(ctx, s, pkg)
	if err != nil {
		return "", nil, err
	}
	if plan.Revision == 0 {
		return "", plan, core.RequestErrorf("%s has no published revision: no wave to skip", mdquote.Code(pkg))
	}
	if wave == "" {
		for _, w := range plan.Waves {
			if w.State != rollout.WaveDone && w.State != rollout.WaveSkipped {
				wave = w.Name
				break
			}
		}
		if wave == "" {
			return "", plan, core.RequestErrorf("every wave of %s v%d met the rule: nothing to skip", mdquote.Code(pkg), plan.Revision)
		}
	} else if !hasWave(plan, wave) {
		return "", plan, core.RequestErrorf("%s has no wave %s (its waves: %s)", mdquote.Code(pkg), mdquote.Code(wave), waveNames(plan))
	}
	now := c.now()
	if _, err := UpdateRecord(ctx, s, pkg, fmt.Sprintf("wave %s of v%d skipped by %s", wave, plan.Revision, by), now, func(r *rollout.Record) bool {
		before := len(r.Skipped)
		r.SkipWave(wave, plan.Revision, by, now)
		return len(r.Skipped) != before
	}); err != nil {
		return "", nil, err
	}
	plan, err = c.Step(ctx, s, pkg)
	return wave, plan, err
}

func hasWave(p *rollout.Plan, name string) bool {
	for _, w := range p.Waves {
		if w.Name == name {
			return true
		}
	}
	return false
}

func waveNames(p *rollout.Plan) string {
	out := ""
	for i, w := range p.Waves {
		if i > 0 {
			out += ", "
		}
		out += mdquote.Code(w.Name)
	}
	return out
}
