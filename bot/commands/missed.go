package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
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
	ListComments(ctx context.Context, owner, repo string, number int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error)
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
	missed, err := unansweredComments(ctx, gh.Issues, repo, since, r.botLogin())
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
		ev := CommentEvent{Repo: repo, Number: issueNumberOf(c), IsPullRequest: strings.Contains(c.GetHTMLURL(), "/pull/"),
			CommentID: c.GetID(), Author: c.GetUser().GetLogin(), AuthorType: c.GetUser().GetType(), Body: c.GetBody(),
			CreatedAt: c.GetCreatedAt().Time, takeOver: true, found: true}
		claimed, err := r.handle(ctx, ev)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if claimed {
			ran = append(ran, c.GetID())
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
func unansweredComments(ctx context.Context, issues commentLister, repo core.Repo, since time.Time, botLogin string) ([]*github.IssueComment, error) {
	// No `since` in the query: the first page's address stays the same
	// from pass to pass, so GitHub answers it 304 (not counted against the
	// rate limit) while nobody comments; the horizon is applied here, and a
	// page whose oldest comment is older than it is the last one read.
	opts := &github.IssueListCommentsOptions{Sort: github.String("created"), Direction: github.String("desc"),
		ListOptions: github.ListOptions{PerPage: 100}}
	replied := map[int64]bool{}
	var cands []*github.IssueComment
	for page := 0; page < missedMaxPages; page++ {
		list, resp, err := issues.ListComments(ctx, repo.Owner, repo.Name, 0, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments: %w", err)
		}
		for _, c := range list {
			if strings.EqualFold(c.GetUser().GetLogin(), botLogin) {
				if id := repliedTo(c.GetBody()); id != 0 {
					replied[id] = true
				}
				continue
			}
			if c.GetCreatedAt().Before(since) || c.GetUpdatedAt().After(c.GetCreatedAt().Time) {
				continue
			}
			ev := CommentEvent{Author: c.GetUser().GetLogin(), AuthorType: c.GetUser().GetType()}
			if ev.FromBot() || len(Parse(c.GetBody())) == 0 {
				continue
			}
			cands = append(cands, c)
		}
		if resp == nil || resp.NextPage == 0 || len(list) == 0 || list[len(list)-1].GetCreatedAt().Before(since) {
			break
		}
		opts.Page = resp.NextPage
	}
	var out []*github.IssueComment
	for i := len(cands) - 1; i >= 0; i-- { // oldest first
		if !replied[cands[i].GetID()] {
			out = append(out, cands[i])
		}
	}
	return out, nil
}

// issueNumberOf is the number at the end of a comment's issue_url.
func issueNumberOf(c *github.IssueComment) int {
	u := c.GetIssueURL()
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
