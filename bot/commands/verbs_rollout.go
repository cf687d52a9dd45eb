package commands

import (
	"context"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// RolloutOps is implemented by a Lifecycle that carries rollouts out:
// /porch rollout's actions on package pkg of s (wave: --wave, for
// skip-wave), by login. Who may pause, resume or skip is its check.
// Without it, rollout replies that this server does not roll out.
type RolloutOps interface {
	Rollout(ctx context.Context, s *core.Session, action, pkg, wave, by string) (Outcome, error)
}

// runRollout is /porch rollout status|pause|resume|skip-wave <package>.
func runRollout(ctx context.Context, cr *commentRun, c Command) result {
	ro, can := cr.r.Lifecycle.(RolloutOps)
	if !can {
		return result{status: statusFailed, text: mdquote.Code(Prefix+" rollout") + " is not available on this server: it rolls no package out in waves."}
	}
	action := strings.ToLower(c.Arg(0))
	if action != "skip-wave" && c.HasFlag(FlagWave) {
		return result{status: statusFailed, text: "`--wave` goes with `skip-wave` only."}
	}
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return ro.Rollout(ctx, s, action, c.Arg(1), c.Flag(FlagWave), cr.ev.Author)
	})
}
