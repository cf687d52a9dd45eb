package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// CommentEvent is a new comment on an issue or a pull request.
type CommentEvent struct {
	Repo core.Repo
	// Number is the issue or pull request number.
	Number        int
	IsPullRequest bool
	// HeadRef (branch, no refs/heads/), HeadSHA and HeadRepo ("owner/name")
	// are a pull request's head, when the caller knows them; if HeadRef is
	// empty the runner reads the pull request when a verb needs its head.
	HeadRef, HeadSHA, HeadRepo string
	CommentID                  int64
	// Author is the commenter's login; AuthorType GitHub's user type
	// ("User", "Bot"). Comments by bots are ignored.
	Author, AuthorType string
	Body               string
	// CreatedAt is when the comment was written (GitHub's created_at,
	// whole seconds): /porch approve binds to the pull request's head at
	// that moment.
	CreatedAt time.Time
	// DeliveryID is the webhook delivery (X-GitHub-Delivery) that brought
	// the comment ("" when the resync found it): the log lines of the run
	// carry it, and an internal error names it.
	DeliveryID string

	// takeOver lets a claim older than the command deadline with no reply
	// be taken over (set by AnswerMissed only).
	takeOver bool
	// found marks a comment the resync read as it is now, not as its
	// author wrote it (set by AnswerMissed only): its words may have been
	// changed by a writer in the second it was written (found.go).
	found bool
}

// FromBot reports a comment written by a bot (type Bot, or a login ending
// in [bot]).
func (ev CommentEvent) FromBot() bool {
	return strings.EqualFold(ev.AuthorType, "Bot") || strings.HasSuffix(strings.ToLower(ev.Author), "[bot]")
}

// SessionOpener opens a repository's Session (core.Opener).
type SessionOpener interface {
	Open(ctx context.Context, repo core.Repo) (*core.Session, error)
}

// Runner runs the /porch commands of comments.
type Runner struct {
	// Clients gives installation clients, for the reaction, permission
	// checks and the reply.
	Clients core.Clients
	// Sessions opens the Session the verbs work in, once per comment and
	// only when a verb needs it.
	Sessions SessionOpener
	// Lifecycle runs the verbs.
	Lifecycle Lifecycle
	// Web is the GitHub web base URL (internal/github.URLs.Web): links in
	// replies, and the only host /porch clone accepts git URLs of.
	Web string
	// InstallationFor gives the installation of another repository (clone
	// sources); nil means the event's installation.
	InstallationFor func(ctx context.Context, owner, repo string) (int64, error)
	// Permissions, if set, reuses commenters' permission answers for a
	// short time (one per process); nil looks them up for every comment.
	Permissions *flow.PermissionCache
	// Flows applies the rule of content crossing repositories (clone);
	// nil: a checker per comment, with Permissions.
	Flows *flow.Checker
	// BotLogin is the App's bot user, whose replies AnswerMissed reads
	// (default approval.DefaultBotLogin).
	BotLogin string
	// CommandTimeout bounds the commands of one comment
	// (DefaultCommandTimeout when 0); a claim older than it (plus a
	// margin) with no reply is taken over by the resync.
	CommandTimeout time.Duration
	// Now is the clock the takeover compares claims with; nil: time.Now.
	Now func() time.Time
	// Log defaults to logrus.StandardLogger().
	Log logrus.FieldLogger
}

// Handle runs the commands of one comment: nothing for bots or comments
// without a /porch line; else one 👀 reaction, one permission lookup
// (when a verb needs write access), each command in order, and one reply
// listing every command's outcome or error. REST calls: reaction 1 +
// permission ≤1 (none when Permissions answered it in the last minute) +
// reply 1 + pull request ≤1 (only when a verb needs the
// head and the event lacks it) + the verbs' own.
//
// The 👀 reaction is the claim on the comment, a compare-and-swap: GitHub
// answers 201 when it creates the bot's reaction and 200 when the bot had
// already reacted so. Only the run that gets 201 runs the commands and
// replies; a replica handling the same delivery, or a resync finding the
// comment, gets 200 and does nothing. When the reaction cannot be made the
// commands are not run (the resync answers the comment later).
//
// Handle returns an error when the installation client cannot be had, the
// comment cannot be claimed, or the reply cannot be posted; in the last
// case the commands have run, and the claim keeps them from running again.
func (r *Runner) Handle(ctx context.Context, ev CommentEvent) error {
	_, err := r.handle(ctx, ev)
	return err
}

// handle is Handle, saying whether this run claimed the comment.
func (r *Runner) handle(ctx context.Context, ev CommentEvent) (bool, error) {
	log := r.logger().WithFields(logrus.Fields{"repository": ev.Repo.FullName(), "number": ev.Number,
		"comment_id": ev.CommentID, "comment_author": ev.Author, "delivery": ev.DeliveryID})
	if ev.FromBot() || ev.Author == "" {
		log.Debug("comment by a bot (or nobody) ignored")
		return false, nil
	}
	cmds := Parse(ev.Body)
	if len(cmds) == 0 {
		return false, nil
	}
	gh, err := r.Clients.Installation(ctx, ev.Repo.InstallationID)
	if err != nil {
		return false, fmt.Errorf("commands in %s#%d: installation client: %w", ev.Repo.FullName(), ev.Number, err)
	}
	cr := &commentRun{r: r, ev: ev, api: apiOf(gh), log: log,
		links: links{web: r.Web, owner: ev.Repo.Owner, repo: ev.Repo.Name}}
	claimed, err := cr.claim(ctx)
	if err != nil {
		return false, fmt.Errorf("commands in %s#%d: %w", ev.Repo.FullName(), ev.Number, err)
	}
	if !claimed {
		log.Info("comment already claimed (👀) by porchbot: answered elsewhere")
		return false, nil
	}
	results := make([]result, 0, len(cmds))
	execCtx, cancel := context.WithTimeout(ctx, r.commandTimeout())
	defer cancel()
	for _, c := range cmds {
		res := cr.execute(execCtx, c)
		log.WithFields(logrus.Fields{"verb": c.Verb, "line": c.Line, "outcome": res.status.String()}).Info("porch command")
		results = append(results, res)
	}
	body := renderReply(ev.Author, results) + takeoverNote(cr.tookOver) + replyMarker(ev.CommentID)
	if _, err := cr.api.issues.CreateComment(ctx, ev.Repo.Owner, ev.Repo.Name, ev.Number, body); err != nil {
		return true, fmt.Errorf("commands in %s#%d: reply: %w", ev.Repo.FullName(), ev.Number, err)
	}
	return true, nil
}

// commentRun is the state of one comment's commands: what is looked up
// once and shared by its commands.
type commentRun struct {
	r     *Runner
	ev    CommentEvent
	api   githubAPI
	log   logrus.FieldLogger
	links links

	permDone        bool
	permLevel, role string
	permErr         error

	sessDone bool
	sess     *core.Session
	sessErr  error

	headDone bool
	head     pullHead
	headErr  error

	// tookOver is when the abandoned first claim was made, if this run
	// took the comment over.
	tookOver time.Time
}

// pullHead is a pull request's head.
type pullHead struct{ ref, sha, repo string }

// execute runs one command: parse errors, place and permission first.
func (cr *commentRun) execute(ctx context.Context, c Command) result {
	if c.Err != nil {
		return result{cmd: c, status: statusFailed, text: describeParseError(c.Err), help: c.Err.ShowHelp}
	}
	v, ok := LookupVerb(c.Verb)
	run, hasRun := verbHandlers[c.Verb]
	if !ok || !hasRun {
		return result{cmd: c, status: statusFailed, text: "this command is not available", help: true}
	}
	if v.Where == InPullRequest && !cr.ev.IsPullRequest {
		return result{cmd: c, status: statusRefused, text: mdquote.Code(Prefix+" "+v.Name) + " works in pull request comments only."}
	}
	if res, refused := cr.foundRefusal(v); refused {
		res.cmd = c
		return res
	}
	if res, refused := cr.authorize(ctx, v); refused {
		res.cmd = c
		return res
	}
	res := run(ctx, cr, c)
	res.cmd = c
	return res
}

// authorize checks the author's permission for verb v (write access for
// WriteAccess verbs): refused, with the result saying why, when they
// lack it or it cannot be looked up.
func (cr *commentRun) authorize(ctx context.Context, v Verb) (result, bool) {
	if v.Access != WriteAccess {
		return result{}, false
	}
	level, role, err := cr.permission(ctx)
	if err != nil {
		return cr.fail(err), true
	}
	if !canWrite(level) {
		return result{status: statusRefused, text: fmt.Sprintf("@%s needs write access to %s to run %s (their permission: %s).",
			cr.ev.Author, cr.ev.Repo.FullName(), mdquote.Code(Prefix+" "+v.Name), role)}, true
	}
	return result{}, false
}

// permission is the commenter's permission, looked up once per comment
// (and reused for a minute across comments with Runner.Permissions).
func (cr *commentRun) permission(ctx context.Context) (level, role string, err error) {
	if !cr.permDone {
		cr.permLevel, cr.role, cr.permErr = cr.r.Permissions.Lookup(ctx, cr.api.repos, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.Author)
		cr.permDone = true
	}
	return cr.permLevel, cr.role, cr.permErr
}

// session opens the repository's Session once per comment.
func (cr *commentRun) session(ctx context.Context) (*core.Session, error) {
	if !cr.sessDone {
		cr.sess, cr.sessErr = cr.r.Sessions.Open(ctx, cr.ev.Repo)
		cr.sessDone = true
	}
	return cr.sess, cr.sessErr
}

// pullHead is the pull request's head: from the event, or read once.
func (cr *commentRun) pullHead(ctx context.Context) (pullHead, error) {
	if cr.ev.HeadRef != "" {
		return pullHead{ref: cr.ev.HeadRef, sha: cr.ev.HeadSHA, repo: cr.ev.HeadRepo}, nil
	}
	if !cr.headDone {
		pr, err := cr.api.pulls.GetPull(ctx, cr.ev.Repo.Owner, cr.ev.Repo.Name, cr.ev.Number)
		if err != nil {
			cr.headErr = fmt.Errorf("read pull request #%d: %w", cr.ev.Number, err)
		} else {
			cr.head = pullHead{ref: pr.Head.Ref, sha: pr.Head.SHA, repo: pr.Head.RepoFullName}
		}
		cr.headDone = true
	}
	return cr.head, cr.headErr
}

// fail turns an error into the commenter's result: refusals
// (*core.RequestError, *UserError) as they are, anything else as an
// internal error, logged.
func (cr *commentRun) fail(err error) result {
	var req *core.RequestError
	var user *UserError
	switch {
	case errors.As(err, &req):
		return result{status: statusFailed, text: mdquote.Quiet(req.Msg)}
	case errors.As(err, &user):
		return result{status: statusFailed, text: mdquote.Quiet(user.Msg)}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		cr.log.WithError(err).Warn("porch command interrupted")
		return result{status: statusFailed, text: "interrupted before it finished (the bot is shutting down or timed out); run it again"}
	}
	cr.log.WithError(err).Error("porch command failed")
	return result{status: statusFailed, text: internalErrorText(cr.ev)}
}

// ok is a successful result.
func ok(text string) result { return result{status: statusOK, text: text} }

// outcome renders an Outcome with its links.
func (cr *commentRun) outcome(o Outcome) result {
	var ls []string
	if o.PullRequest != 0 {
		ls = append(ls, fmt.Sprintf("[#%d](%s)", o.PullRequest, cr.links.pull(o.PullRequest)))
	}
	if o.Branch != "" {
		ls = append(ls, mdCodeLink(o.Branch, cr.links.tree(o.Branch)))
	}
	if o.Tag != "" {
		ls = append(ls, mdCodeLink(o.Tag, cr.links.tree(o.Tag)))
	}
	if o.CheckURL != "" {
		ls = append(ls, "[check]("+o.CheckURL+")")
	}
	text := o.Text
	if text == "" {
		text = "Done."
	}
	if len(ls) > 0 {
		text += " — " + strings.Join(ls, " · ")
	}
	return ok(text)
}

// flows is the flow rule's checker.
func (r *Runner) flows() *flow.Checker {
	if r.Flows != nil {
		return r.Flows
	}
	return &flow.Checker{Permissions: r.Permissions}
}
