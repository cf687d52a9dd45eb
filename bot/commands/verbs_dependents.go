package commands

import (
	"context"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
)

// runDependents is /porch dependents <package>: the downstream packages
// known to track it, from the downstream registry and the git cache (no
// REST call of its own), named only where every reader of this repository
// may read them (proposals.DependentsReport).
func runDependents(ctx context.Context, cr *commentRun, c Command) result {
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	rep, err := proposals.Dependents(ctx, s, c.Arg(0))
	if err != nil {
		return cr.fail(err)
	}
	return ok(rep.Markdown())
}
