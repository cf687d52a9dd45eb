package commands

import (
	"context"
	"fmt"
	"time"
)

// Claim reactions. 👀 is the claim on a comment (SPEC §4: porchbot reacts
// with 👀 when it starts). 🚀 is the takeover: a resync that finds a comment
// claimed long ago and never answered (the replica that claimed it died
// mid-command) claims it a second time with 🚀 and runs it. Both are
// compare-and-swaps: GitHub answers 201 to the call that makes the
// reaction and 200 to every later one.
const (
	claimReaction    = "eyes"
	takeoverReaction = "rocket"
)

// Defaults of the command deadline and of the takeover that relies on it.
const (
	// DefaultCommandTimeout bounds the commands of one comment; at the
	// deadline they stop and the reply says they were interrupted.
	DefaultCommandTimeout = 10 * time.Minute
	// takeoverMargin is added to the command deadline before a claim
	// counts as abandoned: room for the reply, and for clock skew between
	// porchbot and GitHub, whose clock dates the reaction.
	takeoverMargin = 5 * time.Minute
)

// commandTimeout is the deadline of one comment's commands.
func (r *Runner) commandTimeout() time.Duration {
	if r.CommandTimeout > 0 {
		return r.CommandTimeout
	}
	return DefaultCommandTimeout
}

// takeoverAfter is how old an unanswered claim must be before a resync
// takes the comment over: past any command's deadline, so the replica that
// claimed it is surely no longer running it.
func (r *Runner) takeoverAfter() time.Duration { return r.commandTimeout() + takeoverMargin }

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// claim puts 👀 on the comment: true when this run made the reaction. A
// comment without an id (not from GitHub) is claimed without a call. When
// porchbot had already reacted and the event may take over (a resync
// that found the comment unanswered), a claim older than takeoverAfter is
// abandoned: this run then claims the comment again with 🚀, and runs it
// if that second claim is its own.
func (cr *commentRun) claim(ctx context.Context) (bool, error) {
	if cr.ev.CommentID == 0 {
		return true, nil
	}
	first, err := cr.api.reactions.ReactToComment(ctx, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.CommentID, claimReaction)
	if err != nil {
		return false, fmt.Errorf("claim comment %d (👀): %w", cr.ev.CommentID, err)
	}
	if first.Made || !cr.ev.takeOver || first.CreatedAt.IsZero() {
		return first.Made, nil
	}
	age := cr.r.now().Sub(first.CreatedAt)
	if age <= cr.r.takeoverAfter() {
		return false, nil
	}
	second, err := cr.api.reactions.ReactToComment(ctx, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.CommentID, takeoverReaction)
	if err != nil {
		return false, fmt.Errorf("take over comment %d (🚀): %w", cr.ev.CommentID, err)
	}
	if second.Made {
		cr.tookOver = first.CreatedAt
		cr.log.WithField("claimed_at", first.CreatedAt).Warn("comment claimed long ago and never answered: taking it over")
	}
	return second.Made, nil
}
