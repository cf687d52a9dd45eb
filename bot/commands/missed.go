package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
)

// Bounds of AnswerMissed.
const (
	// DefaultMissedHorizon is how far back AnswerMissed looks for comments
	// with no reply: a few resync intervals (10 minutes by default), so a
	// comment refused while the queue was full, or lost, is answered by
	// the next pass even when one pass fails.
	DefaultMissedHorizon = 2 * time.Hour
	// missedMaxPages bounds the comment pages (100 each) read per run.
	missedMaxPages = 3
	// missedMaxAnswers bounds the comments answered per run; the rest wait
	// for the next run.
	missedMaxAnswers = 20
)

// commentLister lists a repository's issue and pull request comments
// (number 0: all of them), as go-github's Issues service does.
type commentLister interface {
	ListComments(ctx context.Context, owner, repo string, number int, q hub.CommentQuery) ([]hub.Comment, hub.Next, error)
}

// AnswerMissed answers the /porch comments of repo created since
// now-horizon (DefaultMissedHorizon when horizon is 0) that porchbot has
// not replied to: a comment refused with 503 (GitHub does not redeliver)
// or lost on the way. Each goes through Handle, whose 👀 claim makes it run
// at most once across replicas and webhook handlers; a claim older than the
// command deadline (plus a margin) that still has no reply was abandoned by
// a replica that stopped mid-command, and is taken over once (🚀). Comments edited after
// the second they were written are left alone (an edit never runs
// commands; GitHub's timestamps are whole seconds), and so are bots'. It returns the comment ids it ran.
//
// REST calls: one comment list per 100 comments in the horizon (at most
// 3, newest first: a reply is always newer than its command, so a command
// read has its reply read too; the first page is revalidated with its ETag,
// so with no new comment it costs nothing against the rate limit), plus, per comment without a reply, the
// claim (which is all a comment claimed but not replied to costs: 200; an
// abandoned claim costs one more, the 🚀 takeover) and Handle's own calls.
func (r *Runner) AnswerMissed(ctx context.Context, repo core.Repo, horizon time.Duration) ([]int64, error) {
	if horizon <= 0 {
		horizon = DefaultMissedHorizon
	}
	gh, err := r.Clients.Installation(ctx, repo.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("answer missed commands in %s: installation client: %w", repo.FullName(), err)
	}
	since := time.Now().Add(-horizon)
	missed, err := unansweredComments(ctx, gh, repo, since, r.botLogin())
	if err != nil {
		return nil, fmt.Errorf("answer missed commands in %s: %w", repo.FullName(), err)
	}
	log := r.logger().WithField("repository", repo.FullName())
	var ran []int64
	var errs []error
	for i, c := range missed {
		if i == missedMaxAnswers {
			log.WithField("left", len(missed)-i).Info("missed commands left for the next resync")
			break
		}
		ev := CommentEvent{Repo: repo, Number: issueNumberOf(c), IsPullRequest: strings.Contains(c.HTMLURL, "/pull/"),
			CommentID: c.ID, Author: c.User.Login, AuthorType: c.User.Type, Body: c.Body,
			CreatedAt: c.CreatedAt, takeOver: true, found: true}
		claimed, err := r.handle(ctx, ev)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if claimed {
			ran = append(ran, c.ID)
		}
	}
	if len(ran) > 0 {
		log.WithField("comments", ran).Info("resync answered /porch comments that had no reply")
	}
	return ran, errors.Join(errs...)
}

// unansweredComments are the comments since since, oldest first, that
// hold a /porch command, were not edited, are not by a bot, and have no
// reply by porchbot (botLogin) naming them.
func unansweredComments(ctx context.Context, issues commentLister, repo core.Repo, since time.Time, botLogin string) ([]hub.Comment, error) {
	// No `since` in the query: the first page's address stays the same
	// from pass to pass, so GitHub answers it 304 (not counted against the
	// rate limit) while nobody comments; the horizon is applied here, and a
	// page whose oldest comment is older than it is the last one read.
	opts := hub.CommentQuery{Sort: "created", Direction: "desc", Page: hub.Page{PerPage: 100}}
	replied := map[int64]bool{}
	var cands []hub.Comment
	for page := 0; page < missedMaxPages; page++ {
		list, next, err := issues.ListComments(ctx, repo.Owner, repo.Name, 0, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments: %w", err)
		}
		for _, c := range list {
			if strings.EqualFold(c.User.Login, botLogin) {
				if id := repliedTo(c.Body); id != 0 {
					replied[id] = true
				}
				continue
			}
			if c.CreatedAt.Before(since) || c.UpdatedAt.After(c.CreatedAt) {
				continue
			}
			ev := CommentEvent{Author: c.User.Login, AuthorType: c.User.Type}
			if ev.FromBot() || len(Parse(c.Body)) == 0 {
				continue
			}
			cands = append(cands, c)
		}
		if next.Page == 0 || len(list) == 0 || list[len(list)-1].CreatedAt.Before(since) {
			break
		}
		opts.Number = next.Page
	}
	var out []hub.Comment
	for i := len(cands) - 1; i >= 0; i-- { // oldest first
		if !replied[cands[i].ID] {
			out = append(out, cands[i])
		}
	}
	return out, nil
}

// issueNumberOf is the number at the end of a comment's issue_url.
func issueNumberOf(c hub.Comment) int {
	u := c.IssueURL
	n := 0
	for _, ch := range u[strings.LastIndexByte(u, '/')+1:] {
		if ch < '0' || ch > '9' {
			return 0
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

func (r *Runner) botLogin() string {
	if r.BotLogin != "" {
		return r.BotLogin
	}
	return approval.DefaultBotLogin
}

func (r *Runner) logger() logrus.FieldLogger {
	if r.Log == nil {
		return logrus.StandardLogger()
	}
	return r.Log
}
