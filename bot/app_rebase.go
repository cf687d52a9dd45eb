package bot

import (
	"context"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rebase"
)

// rebaseAfterPublish rebases the other drafts of the packages a publish
// tagged on their new revision (lifecycle.rebaseDrafts, docs/drafts.md).
// It never fails the event: a draft not rebased is logged, and its
// outcome says why.
func (a *App) rebaseAfterPublish(ctx context.Context, s *core.Session, out *publish.Outcome) {
	if out == nil || len(out.Published) == 0 || !rebase.Enabled(s.Config) {
		return
	}
	api := rebase.API{Proposal: a.proposalAPI(s.Hub), Identity: a.Render.Identity}
	if _, err := rebase.Drafts(ctx, s, api, rebase.Latest(out.Published), rebase.Options{}); err != nil {
		s.Log.WithError(err).Warn("drafts not rebased on the published revisions")
	}
}
