package bot

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/internal/mdquote"
	irollout "github.com/porchbot/porchbot/internal/rollout"
)

// Rollout is /porch rollout: status for anyone with write access; pause,
// resume and skip-wave for the repository's approvers (approvals.approvers,
// or anyone with write access when it lists nobody).
func (o CommandOps) Rollout(ctx context.Context, s *core.Session, action, pkg, wave, by string) (commands.Outcome, error) {
	c := o.App.Rollouts.Plans()
	if c == nil {
		return commands.Outcome{}, &commands.UserError{Msg: "this server rolls no package out in waves"}
	}
	if !rollout.Has(s, pkg) {
		return commands.Outcome{}, userError(core.RequestErrorf("%s has no rollout: its revisions go to every downstream at once. Give it waves under `updates.rollouts` in `.github/porchbot.yaml` (docs/rollouts.md).", mdquote.Code(pkg)))
	}
	if action != "status" {
		ok, note, err := approval.NewApproverResolver(o.App.proposalAPI(s.Hub), s.Repo, s.Config.Approvals.Approvers).Allowed(ctx, by)
		if err != nil {
			return commands.Outcome{}, err
		}
		if !ok {
			return commands.Outcome{}, &commands.UserError{Msg: fmt.Sprintf("only an approver of %s may %s a rollout (%s).", s.Repo.FullName(), action, mdquote.Quiet(note))}
		}
	}
	var plan *irollout.Plan
	var err error
	prefix := ""
	switch action {
	case "status":
		plan, err = c.Plan(ctx, s, pkg)
	case "pause":
		plan, err = c.Pause(ctx, s, pkg, by)
		prefix = "Paused: nothing more is proposed until `/porch rollout resume " + pkg + "`.\n\n"
	case "resume":
		plan, err = c.Resume(ctx, s, pkg, by)
		prefix = "Resumed; the failures reported so far are acknowledged.\n\n"
	case "skip-wave":
		var skipped string
		skipped, plan, err = c.SkipWave(ctx, s, pkg, wave, by)
		if err == nil {
			prefix = fmt.Sprintf("Wave %s skipped: the next wave opens without waiting for it.\n\n", mdquote.Code(skipped))
		}
	}
	if err != nil {
		return commands.Outcome{}, userError(err)
	}
	r, _ := s.Config.RolloutOf(pkg)
	return commands.Outcome{Text: prefix + rollout.Markdown(plan, rollout.NameableIn(r, o.App.Rollouts.NameableIn(s.Repo.FullName())))}, nil
}
