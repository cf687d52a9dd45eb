package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle"
)

// renderChecks is the check-runs client renders write through: the
// porchbot/render runs it writes are remembered (App.Renders), so the
// approval verdict reads their state without a call.
func (a *App) renderChecks(s *lifecycle.Session) lifecycle.CheckRunAPI {
	return a.Renders.Checks(s.Repo.FullName(), s.GH.Checks)
}

// reevaluateRendered judges again the proposals whose approval was
// evaluated while the render of their head was unfinished, now that it
// has finished here (one pull request read, then the evaluation's calls).
func (a *App) reevaluateRendered(ctx context.Context, s *lifecycle.Session) error {
	var errs []error
	for _, n := range a.Renders.TakeReady(s.Repo.FullName()) {
		pr, _, err := s.GH.PullRequests.Get(ctx, s.Repo.Owner, s.Repo.Name, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("re-evaluate #%d after its render: %w", n, err))
			continue
		}
		if _, err := lifecycle.EvaluateApproval(ctx, s, a.proposalAPI(s.GH), pr); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
