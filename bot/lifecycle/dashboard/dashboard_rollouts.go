package dashboard

import (
	"context"
	"errors"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/internal/mdquote"
	irollout "github.com/porchbot/porchbot/internal/rollout"
)

// Rollout is one package's rollout (docs/rollouts.md) as the dashboard of
// its upstream repository shows it.
type Rollout struct {
	Package string
	// Plan is the rollout as it stands (nil when it could not be read:
	// Problem says why).
	Plan    *irollout.Plan
	Problem string
	// Name says which downstream repositories the dashboard may name:
	// the others are counted (the naming rule, docs/security.md).
	Name rollout.Nameable
}

// GatherRollouts reads the plan of every rollout of s's packages as it
// stands (rollout.Controller.Plan: git reads, the downstream registry,
// no REST call but a listing of topics the App keeps for ten minutes
// when a wave selects by topic). indexNames is the index's naming rule
// in s's threads: the repositories it names and the ones a rollout's
// configuration names are named.
func GatherRollouts(ctx context.Context, s *core.Session, c *rollout.Controller, indexNames func(repo string) bool) ([]Rollout, error) {
	if c == nil {
		return nil, nil
	}
	var out []Rollout
	var errs []error
	for _, r := range s.Config.Rollouts() {
		dr := Rollout{Package: r.Package, Name: rollout.NameableIn(r, indexNames)}
		if len(out) >= dashboardMaxRows {
			// Past the section's bound: counted in its "… and N more",
			// not read.
			dr.Problem = "not looked at"
			out = append(out, dr)
			continue
		}
		p, err := c.Plan(ctx, s, r.Package)
		switch {
		case err != nil:
			errs = append(errs, err)
			dr.Problem = "could not be read now"
		case p == nil:
			continue
		default:
			dr.Plan = p
		}
		out = append(out, dr)
	}
	return out, errors.Join(errs...)
}

// rolloutRow is one rollout in the dashboard: rollout.Compact, a list
// item of a few lines.
func rolloutRow(r Rollout) string {
	if r.Plan == nil {
		return "- " + mdquote.Code(r.Package) + ": " + mdquote.Text(r.Problem) + "; " + mdquote.Code("/porch rollout status "+r.Package) + " tells"
	}
	return strings.TrimRight(rollout.Compact(r.Plan, r.Name), "\n")
}
