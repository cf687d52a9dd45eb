package commands

import (
	"context"
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// Tick is a ticked box of the "Package dashboard" issue: the /porch verb
// it stands for, whose permission it needs, and what it does.
type Tick struct {
	// Verb is the matching command ("render", "upgrade").
	Verb string
	// Text names the box in the reply.
	Text string
	// Run does it in the repository's session.
	Run func(ctx context.Context, s *core.Session) (Outcome, error)
}

// TickEvent is an edit of the dashboard issue that ticked boxes.
type TickEvent struct {
	Repo core.Repo
	// Number is the dashboard issue.
	Number int
	// Author is who edited the issue (the webhook's sender); AuthorType
	// GitHub's user type. Bots' ticks are ignored.
	Author, AuthorType string
	DeliveryID         string
	Ticks              []Tick
}

// HandleTicks runs the ticked boxes of a dashboard edit as the ticker's
// commands: each is checked against their permission exactly as the
// matching /porch command is (the verb's access in the Verbs table, the
// same lookup and cache), then run; one reply on the issue lists every
// outcome, refusals included. REST calls: permission ≤1, reply 1, and the
// actions' own.
func (r *Runner) HandleTicks(ctx context.Context, ev TickEvent) error {
	log := r.logger().WithFields(logrus.Fields{"repository": ev.Repo.FullName(), "number": ev.Number,
		"ticker": ev.Author, "delivery": ev.DeliveryID})
	cev := CommentEvent{Repo: ev.Repo, Number: ev.Number, Author: ev.Author, AuthorType: ev.AuthorType, DeliveryID: ev.DeliveryID}
	if cev.FromBot() || ev.Author == "" || len(ev.Ticks) == 0 {
		return nil
	}
	gh, err := r.Clients.Installation(ctx, ev.Repo.InstallationID)
	if err != nil {
		return fmt.Errorf("dashboard ticks in %s#%d: installation client: %w", ev.Repo.FullName(), ev.Number, err)
	}
	cr := &commentRun{r: r, ev: cev, api: apiOf(gh), log: log,
		links: links{web: r.Web, owner: ev.Repo.Owner, repo: ev.Repo.Name}}
	execCtx, cancel := context.WithTimeout(ctx, r.commandTimeout())
	defer cancel()
	results := make([]result, 0, len(ev.Ticks))
	for _, t := range ev.Ticks {
		res := cr.tick(execCtx, t)
		res.cmd = Command{Verb: t.Verb, Text: "☑ " + t.Text}
		log.WithFields(logrus.Fields{"verb": t.Verb, "box": t.Text, "outcome": res.status.String()}).Info("dashboard box")
		results = append(results, res)
	}
	body := renderReply(ev.Author, results)
	if _, err := cr.api.issues.CreateComment(ctx, ev.Repo.Owner, ev.Repo.Name, ev.Number, body); err != nil {
		return fmt.Errorf("dashboard ticks in %s#%d: reply: %w", ev.Repo.FullName(), ev.Number, err)
	}
	return nil
}

// tick runs one box after the permission check of its verb.
func (cr *commentRun) tick(ctx context.Context, t Tick) result {
	v, ok := LookupVerb(t.Verb)
	if !ok || t.Run == nil {
		return result{status: statusFailed, text: "this box does nothing on this server"}
	}
	if res, refused := cr.authorize(ctx, v); refused {
		return res
	}
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) { return t.Run(ctx, s) })
}
