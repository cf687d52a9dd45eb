package core

import (
	"context"

	"github.com/porchbot/porchbot/internal/index"
)

// RolloutStates gives the package index the state of the rollouts of the
// session's repository's packages (bot.App.RolloutStates: the rollout
// controller's plans, from git and the downstream registry), by package:
// counts only, no repository named. A rollout whose state could not be
// read is a nil entry (the index keeps what it said of it); a nil map
// means none could be read.
type RolloutStates interface {
	RolloutStates(ctx context.Context, s *Session) map[string]*index.Rollout
}
