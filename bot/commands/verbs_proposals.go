package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// runPropose is /porch propose [<package>/<workspace>]: without an
// argument, the draft of the pull request commented on.
func runPropose(ctx context.Context, cr *commentRun, c Command) result {
	var pkg, ws string
	if a := c.Arg(0); a != "" {
		pkg, ws, _ = ParseDraftArg(a) // checked by the parser
	} else {
		if !cr.ev.IsPullRequest {
			return cr.fail(&UserError{Msg: "name the draft: " + mdquote.Code(Prefix+" propose <package>/<workspace>")})
		}
		var err error
		if pkg, ws, err = cr.pullDraft(ctx); err != nil {
			return cr.fail(err)
		}
	}
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		if err := proposals.CheckProposable(ctx, s, s.Hub, pkg, ws); err != nil {
			return Outcome{}, err
		}
		return cr.r.Lifecycle.OpenProposal(ctx, s, pkg, ws, cr.ev.Author)
	})
}

// runApprove is /porch approve [--orphan-downstreams], recorded at the
// pull request's head when the comment was written.
func runApprove(ctx context.Context, cr *commentRun, c Command) result {
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return cr.r.Lifecycle.RecordApproval(ctx, s, cr.ev.Number, cr.ev.CreatedAt, cr.ev.Author, c.HasFlag(FlagOrphanDownstreams))
	})
}

// runReject is /porch reject [reason].
func runReject(ctx context.Context, cr *commentRun, c Command) result {
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return cr.r.Lifecycle.Reject(ctx, s, cr.ev.Number, cr.ev.Author, c.Arg(0))
	})
}

// ForkRenderer is implemented by a Lifecycle that renders pull requests
// from forks on /porch render: each package the pull request changes, with
// built-in functions only, reported on porchbot/render at the fork's head
// and never pushed (a fork is not writable).
type ForkRenderer interface {
	RenderFork(ctx context.Context, s *core.Session, pr int, headSHA, headRepo string) (Outcome, error)
}

// runRender is /porch render, in a draft's pull request, or in a pull
// request from a fork (rendered, not pushed, exec functions off).
func runRender(ctx context.Context, cr *commentRun, _ Command) result {
	head, err := cr.pullHead(ctx)
	if err != nil {
		return cr.fail(err)
	}
	if head.repo != "" && !strings.EqualFold(head.repo, cr.ev.Repo.FullName()) {
		fr, can := cr.r.Lifecycle.(ForkRenderer)
		if !can {
			return cr.fail(&UserError{Msg: "this pull request comes from a fork: porchbot renders it when it is opened or updated"})
		}
		return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
			return fr.RenderFork(ctx, s, cr.ev.Number, head.sha, head.repo)
		})
	}
	pkg, ws, err := cr.pullDraft(ctx)
	if err != nil {
		return cr.fail(err)
	}
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return cr.r.Lifecycle.Render(ctx, s, pkg, ws, head.sha)
	})
}

// runDelete is /porch delete <package>.
func runDelete(ctx context.Context, cr *commentRun, c Command) result {
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		if err := proposals.RequirePackage(ctx, s, c.Arg(0)); err != nil {
			return Outcome{}, err
		}
		return cr.r.Lifecycle.ProposeDeletion(ctx, s, c.Arg(0), cr.ev.Author)
	})
}

// runPublish is /porch publish [<package>]: in a merged pull request, or
// anywhere with the package named (its latest landing on the deployment
// branch).
func runPublish(ctx context.Context, cr *commentRun, c Command) result {
	pr := 0
	if cr.ev.IsPullRequest {
		pr = cr.ev.Number
	}
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return cr.r.Lifecycle.Publish(ctx, s, pr, c.Arg(0), cr.ev.Author)
	})
}

// runUpgrade is /porch upgrade <package> [--to vN] [--strategy S]: the
// package's update pull request, on the path an upstream publish takes.
func runUpgrade(ctx context.Context, cr *commentRun, c Command) result {
	up, can := cr.r.Lifecycle.(Upgrader)
	if !can {
		return result{status: statusFailed, text: mdquote.Code(Prefix+" upgrade") + " is not available on this server: it makes no " +
			"update pull requests. " + mdquote.Code(Prefix+" clone") + " the newer upstream revision into a new package instead."}
	}
	to, _ := packages.ParseRevision(c.Flag(FlagTo))
	return cr.withSession(ctx, func(s *core.Session) (Outcome, error) {
		return up.Upgrade(ctx, s, c.Arg(0), to, c.Flag(FlagStrategy), cr.ev.Author)
	})
}

// withSession opens the session and renders fn's Outcome.
func (cr *commentRun) withSession(ctx context.Context, fn func(*core.Session) (Outcome, error)) result {
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	o, err := fn(s)
	if err != nil {
		return cr.fail(err)
	}
	return cr.outcome(o)
}

// pullDraft is the draft whose pull request is commented on.
func (cr *commentRun) pullDraft(ctx context.Context) (pkg, ws string, err error) {
	head, err := cr.pullHead(ctx)
	if err != nil {
		return "", "", err
	}
	if head.repo != "" && !strings.EqualFold(head.repo, cr.ev.Repo.FullName()) {
		return "", "", &UserError{Msg: "this pull request comes from a fork: its branch is not a draft of " + cr.ev.Repo.FullName()}
	}
	pkg, ws, err = packages.CheckDraftBranchName(head.ref)
	if err != nil {
		return "", "", &UserError{Msg: fmt.Sprintf("this pull request's branch %s is not a draft (drafts/<package>/<workspace>): %v",
			mdquote.Code(head.ref), err)}
	}
	return pkg, ws, nil
}
