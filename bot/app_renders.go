package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// renderChecks is the check-runs client renders write through: the
// porchbot/render runs it writes are remembered (App.Renders), so the
// approval verdict reads their state without a call.
func (a *App) renderChecks(s *core.Session) rendercheck.CheckRunAPI {
	return a.meterRenders(s, a.Renders.Checks(s.Repo.FullName(), s.Hub))
}

// reevaluateRendered judges again the proposals whose approval was
// evaluated while the render of their head was unfinished, now that it
// has finished here (one pull request read, then the evaluation's calls).
func (a *App) reevaluateRendered(ctx context.Context, s *core.Session) error {
	return a.reevaluate(ctx, s, a.Renders.TakeReady(s.Repo.FullName()))
}

// onRenderRun notes a porchbot/render run of the App finished, as a
// check_run event tells (another replica may have rendered), and judges
// again the proposals this process evaluated before it finished. No call,
// and no session, when none waits.
func (a *App) onRenderRun(ctx context.Context, installationID int64, ev *github.CheckRunEvent) error {
	run := ev.GetCheckRun()
	if run.GetName() != core.RenderCheckName || run.GetStatus() != "completed" ||
		!strings.EqualFold(ev.GetSender().GetLogin(), a.botLogin()) {
		return nil
	}
	r := ev.GetRepo()
	repo := repoOf(installationID, r.GetOwner().GetLogin(), r.GetName(), r.GetDefaultBranch())
	a.Renders.Observe(repo.FullName(), ghclient.CheckRunOf(run))
	ready := a.Renders.TakeReady(repo.FullName())
	if len(ready) == 0 {
		return nil
	}
	s, err := a.open(ctx, repo)
	if err != nil {
		return err
	}
	return a.reevaluate(ctx, s, ready)
}

// reevaluate judges pull requests prs of s's repository again: an open
// one's approval, a merged one's landing.
func (a *App) reevaluate(ctx context.Context, s *core.Session, prs []int) error {
	var errs []error
	for _, n := range prs {
		pr, err := s.Hub.GetPull(ctx, s.Repo.Owner, s.Repo.Name, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("re-evaluate #%d after its render: %w", n, err))
			continue
		}
		if pr.Merged {
			// A landing that waited for its head's render.
			if err := a.publishMerged(ctx, s, pr); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if _, err := approval.EvaluateApproval(ctx, s, a.proposalAPI(s.Hub), pr); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
