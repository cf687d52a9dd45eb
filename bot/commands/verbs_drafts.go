package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// runInit is /porch init <package> [--workspace W] [--description D].
func runInit(ctx context.Context, cr *commentRun, c Command) result {
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	d, err := cr.r.Lifecycle.NewDraft(ctx, s, proposals.NewDraftRequest{Package: c.Arg(0), Workspace: c.Flag(FlagWorkspace),
		Description: c.Flag(FlagDescription), RequestedBy: cr.ev.Author})
	if err != nil {
		return cr.fail(err)
	}
	return ok(cr.describeDraft(s, d, "with the files of `kpt pkg init`"))
}

// runEdit is /porch edit <package> [--from vN] [--workspace W].
func runEdit(ctx context.Context, cr *commentRun, c Command) result {
	rev, _ := packages.ParseRevision(c.Flag(FlagFrom)) // checked by the parser; 0 = latest
	return cr.editDraft(ctx, proposals.EditRequest{Package: c.Arg(0), Revision: rev, Workspace: c.Flag(FlagWorkspace),
		RequestedBy: cr.ev.Author})
}

// runRollback is /porch rollback <package> v<N> [--workspace W].
func runRollback(ctx context.Context, cr *commentRun, c Command) result {
	rev, _ := packages.ParseRevision(c.Arg(1))
	return cr.editDraft(ctx, proposals.EditRequest{Package: c.Arg(0), Revision: rev, Workspace: c.Flag(FlagWorkspace),
		Rollback: true, RequestedBy: cr.ev.Author})
}

func (cr *commentRun) editDraft(ctx context.Context, req proposals.EditRequest) result {
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	d, err := cr.r.Lifecycle.EditDraft(ctx, s, req)
	if err != nil {
		return cr.fail(err)
	}
	what := "copied from " + mdCodeLink(d.Source, cr.links.tree(d.Source))
	if req.Rollback {
		what = "with the content of " + mdCodeLink(d.Source, cr.links.tree(d.Source))
	}
	if d.Unchanged {
		what += fmt.Sprintf(" (the same content as on %s)", mdquote.Code(s.DeploymentBranch))
	}
	return ok(cr.describeDraft(s, d, what))
}

// runClone is /porch clone <source> <package> [--workspace W].
func runClone(ctx context.Context, cr *commentRun, c Command) result {
	src, err := proposals.ParseCloneSource(c.Arg(0), cr.r.Web)
	if err != nil {
		return cr.fail(err)
	}
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	d, err := cr.r.Lifecycle.Clone(ctx, s, proposals.CloneRequest{Source: src, Package: c.Arg(1),
		Workspace: c.Flag(FlagWorkspace), RequestedBy: cr.ev.Author}, cr.openSource)
	if err != nil {
		return cr.fail(err)
	}
	what := fmt.Sprintf("cloned from %s at %s, with `upstream` and `upstreamLock` set as `kpt pkg get` sets them",
		mdquote.Code(d.Source), mdquote.Code(words.ShortSHA(d.SourceCommit.String())))
	return ok(cr.describeDraft(s, d, what))
}

// openSource opens a clone source in another repository: the App must
// see it, and the flow of its content into this repository must pass the
// rule of internal/flow for the commenter (read the source, write this
// repository, never toward more readers unless the source's configuration
// allows it). REST calls: the repository; the commenter's permission on it
// unless it is public, this repository's visibility unless it is public
// (each cached a minute; the permission here is the command's own).
func (cr *commentRun) openSource(ctx context.Context, owner, repo string) (*core.Session, error) {
	full := owner + "/" + repo
	id := cr.ev.Repo.InstallationID
	if cr.r.InstallationFor != nil {
		got, err := cr.r.InstallationFor(ctx, owner, repo)
		if err != nil {
			cr.log.WithError(err).WithField("source", full).Info("clone source: no installation")
			return nil, &UserError{Msg: fmt.Sprintf("porchbot is not installed on %s (or there is no such repository)", full)}
		}
		id = got
	}
	gh, err := cr.r.Clients.Installation(ctx, id)
	if err != nil {
		return nil, err
	}
	api := apiOf(gh)
	info, err := api.repos.GetRepository(ctx, owner, repo)
	if err != nil {
		if isNotFound(err) {
			return nil, &UserError{Msg: fmt.Sprintf("porchbot cannot see %s: it is not installed there, or there is no such repository", full)}
		}
		return nil, fmt.Errorf("read repository %s: %w", full, err)
	}
	src := flow.Repo{Owner: info.Owner, Name: info.Name, Visibility: flow.VisibilityOf(info), API: api.repos}
	var s *core.Session
	open := func(ctx context.Context) (*core.Session, error) {
		if s == nil {
			s, err = cr.r.Sessions.Open(ctx, core.Repo{Owner: src.Owner, Name: src.Name,
				InstallationID: id, DefaultBranch: info.DefaultBranch})
		}
		return s, err
	}
	// The source's configuration is read (its session opened) only when
	// the flow would widen and the commenter can read the source.
	allow := func(ctx context.Context) (bool, error) {
		s, err := open(ctx)
		if err != nil {
			return false, err
		}
		return s.Config.Flows.AllowWiderReaders, nil
	}
	err = cr.r.flows().Check(ctx, flow.Request{Source: src, Target: flow.Repo{Owner: cr.ev.Repo.Owner, Name: cr.ev.Repo.Name, API: cr.api.repos},
		Requester: cr.ev.Author, Allow: allow})
	var refused *flow.Refusal
	if errors.As(err, &refused) {
		return nil, &UserError{Msg: refused.Reason}
	}
	if err != nil {
		return nil, err
	}
	return open(ctx)
}

// describeDraft is the reply for a new draft: its branch, what it holds,
// what it was built on and what to do next.
func (cr *commentRun) describeDraft(s *core.Session, d *proposals.Draft, what string) string {
	return fmt.Sprintf("Created draft %s %s, on %s at %s (commit %s).\nNext: push changes to the branch, then %s.",
		mdCodeLink(d.Branch, cr.links.tree(d.Branch)), what, mdquote.Code(s.DeploymentBranch), mdquote.Code(words.ShortSHA(d.Base.String())),
		mdCodeLink(words.ShortSHA(d.Commit.String()), cr.links.commit(d.Commit.String())),
		mdquote.Code(Prefix+" propose "+d.Package+"/"+d.Workspace))
}
