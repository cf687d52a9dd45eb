package commands

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/go-github/v60/github"
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

// claim is the outcome of a claim call.
type claim struct {
	made bool      // this call made the reaction (201)
	at   time.Time // when porchbot's reaction was made (zero if GitHub did not say)
}

// restReactions claims comments over the REST API. go-github's Reaction
// has no created_at, which the takeover needs, so the response is read
// into a struct of its own.
type restReactions struct{ c *github.Client }

func (r restReactions) ClaimComment(ctx context.Context, owner, repo string, id int64, content string) (claim, error) {
	u := fmt.Sprintf("repos/%v/%v/issues/comments/%v/reactions", owner, repo, id)
	req, err := r.c.NewRequest(http.MethodPost, u, &struct {
		Content string `json:"content"`
	}{content})
	if err != nil {
		return claim{}, err
	}
	var out struct {
		CreatedAt *github.Timestamp `json:"created_at"`
	}
	resp, err := r.c.Do(ctx, req, &out)
	if err != nil {
		return claim{}, err
	}
	c := claim{made: resp == nil || resp.StatusCode != http.StatusOK}
	if out.CreatedAt != nil {
		c.at = out.CreatedAt.Time
	}
	return c, nil
}

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
	first, err := cr.api.reactions.ClaimComment(ctx, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.CommentID, claimReaction)
	if err != nil {
		return false, fmt.Errorf("claim comment %d (👀): %w", cr.ev.CommentID, err)
	}
	if first.made || !cr.ev.takeOver || first.at.IsZero() {
		return first.made, nil
	}
	age := cr.r.now().Sub(first.at)
	if age <= cr.r.takeoverAfter() {
		return false, nil
	}
	second, err := cr.api.reactions.ClaimComment(ctx, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.CommentID, takeoverReaction)
	if err != nil {
		return false, fmt.Errorf("take over comment %d (🚀): %w", cr.ev.CommentID, err)
	}
	if second.made {
		cr.tookOver = first.at
		cr.log.WithField("claimed_at", first.at).Warn("comment claimed long ago and never answered: taking it over")
	}
	return second.made, nil
}
