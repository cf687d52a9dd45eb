package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// CommandHooks is implemented by Hooks that can answer the
// /porch comments nobody answered (a delivery refused with 503 when the
// queue was full is never redelivered by GitHub, and a lost one never
// arrives): the resync hands them every repository it reconciles.
type CommandHooks interface {
	// AnswerMissedCommands runs and answers the recent /porch comments of
	// s's repository that have no reply, and returns their ids.
	AnswerMissedCommands(ctx context.Context, s *core.Session) ([]int64, error)
}

// resyncCommands answers the missed commands when the hooks can.
func resyncCommands(ctx context.Context, s *core.Session, deps Deps, rep *Report) error {
	h, ok := deps.Hooks.(CommandHooks)
	if !ok {
		return nil
	}
	ids, err := h.AnswerMissedCommands(ctx, s)
	rep.CommandsAnswered = append(rep.CommandsAnswered, ids...)
	if err != nil {
		s.Log.WithError(err).Warn("resync: answering missed commands failed")
		return fmt.Errorf("missed commands: %w", err)
	}
	return nil
}
