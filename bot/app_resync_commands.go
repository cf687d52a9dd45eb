package bot

import (
	"context"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// MissedCommandAnswerer answers the recent /porch comments of a
// repository that have no reply (commands.Runner.AnswerMissed).
type MissedCommandAnswerer interface {
	AnswerMissed(ctx context.Context, repo core.Repo, horizon time.Duration) ([]int64, error)
}

// AnswerMissedCommands is the resync's hook for /porch comments nobody
// answered (resync.CommandHooks): the comment runner's, when the
// App runs comments with one.
func (a *App) AnswerMissedCommands(ctx context.Context, s *core.Session) ([]int64, error) {
	c, ok := a.Comments.(*Commands)
	if !ok {
		return nil, nil
	}
	m, ok := c.Runner.(MissedCommandAnswerer)
	if !ok {
		return nil, nil
	}
	return m.AnswerMissed(ctx, s.Repo, 0)
}
