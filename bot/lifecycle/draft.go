package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// DefaultRenderAttempts bounds the renders of one draft push when the
// branch keeps moving under the bot's lease.
const DefaultRenderAttempts = 3

// RenderRequest is a push to a draft branch.
type RenderRequest struct {
	// Branch is the pushed branch, "drafts/<package>/<workspace>" (without
	// refs/heads/).
	Branch string
	// Head is the pushed head (the push event's "after"), for the logs: the
	// step renders the branch's head in the session's cache, which is the
	// pushed head unless someone pushed again since.
	Head    plumbing.Hash
	Options RenderOptions
	// Retry: the render is resync's, of a head that may have been rendered
	// before by a process that died: earlier attempts are counted and the
	// head quarantined after MaxRenderAttempts (one more REST call).
	Retry bool
}

// RenderDraft renders the package of a draft branch after a push: in
// process, exec functions per the server's and the repository's policy,
// the repository's guardrail functions appended.
//
// With render.onDraftPush: commit and a rendered result that differs from
// the branch's content, it pushes one commit "Render <package>" (Porch's
// trailer, task render) on top, leased on the head it rendered: if the
// branch moved meanwhile it fetches the branch and renders the new head
// again (at most Options.MaxAttempts renders), never forcing. A head that
// is the bot's own Render commit is never rendered into another commit (a
// pipeline that is not idempotent fails the check instead of looping).
// With render.onDraftPush: check it only reports.
//
// It reports the check run porchbot/render on the branch's final head:
// success, failure (the pipeline failed, or, check-only, the committed
// files are not the rendered result), or neutral (no package at the
// branch's path). Before rendering, it records the attempt as an in_progress
// check run on the head, which the report completes (see MaxRenderAttempts:
// a render that kills the process is quarantined, not retried forever).
// Cost per push: two REST calls (the check run's creation and completion;
// one more per further 50 annotations, one more for the check on the Render
// commit and, for resync's retries, one to read earlier attempts) and, when
// it commits, one git push.
//
// A deleted branch gives an outcome with no check run and no error. A
// branch that keeps moving gives an error wrapping gitstore.ErrLeaseBroken;
// the check runs of the heads it rendered are concluded neutral
// ("superseded"): the later pushes have their own events.
func RenderDraft(ctx context.Context, s *Session, api CheckRunAPI, req RenderRequest) (_ *RenderOutcome, err error) {
	pkg, ws, err := packages.CheckDraftBranchName(req.Branch)
	if err != nil {
		return nil, fmt.Errorf("render draft: %w", err)
	}
	opts := req.Options
	maxAttempts := opts.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultRenderAttempts
	}
	dir := packageDir(s.Config, pkg)
	commitMode := s.Config == nil || s.Config.Render.OnDraftPush != config.OnDraftPushCheck
	log := s.Log.WithFields(map[string]any{"package": pkg, "ref": req.Branch})
	ref := plumbing.NewBranchReferenceName(req.Branch).String()
	out := &RenderOutcome{Package: pkg, Workspace: ws, Dir: dir}

	head, err := s.Git.ResolveRef(ctx, ref)
	if errors.Is(err, gitstore.ErrNotFound) {
		log.Info("draft branch is gone; nothing to render")
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("render draft %s: %w", req.Branch, err)
	}
	if !req.Head.IsZero() && head != req.Head {
		log.WithField("pushed", req.Head.String()).WithField("head", head.String()).
			Info("draft moved since the push; rendering its head")
	}

	var rec *renderAttempt
	defer func() { rec.abandon(ctx, pkg, err) }()
	var facts renderFacts
	for attempt := 1; ; attempt++ {
		out.Attempts = attempt
		run, err := loadRun(ctx, s, head, dir)
		if err != nil {
			return out, fmt.Errorf("render draft %s at %s: %w", req.Branch, abbrevHash(head), err)
		}
		var verdict attemptVerdict
		rec, verdict, err = beginRender(ctx, s, api, head, pkg, opts, req.Retry && attempt == 1)
		if err != nil {
			return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
		}
		if rec == nil {
			out.Head, out.Rendered = head, head
			out.noRender(verdict)
			return out, nil
		}
		if err := run.render(ctx, s, dir, false, opts); err != nil {
			return out, fmt.Errorf("render draft %s at %s: %w", req.Branch, abbrevHash(head), err)
		}
		facts = run.facts(pkg, dir, head)
		out.Head, out.Rendered, out.Result, out.Differs = head, head, run.result, changedPaths(run.changes)
		if !commitMode || run.missing || run.err != nil || len(run.changes) == 0 {
			break
		}
		own, err := isBotRenderCommit(ctx, s, head, pkg, opts.Identity)
		if err != nil {
			return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
		}
		if own {
			log.WithField("files", out.Differs).Warn("rendering the bot's own Render commit changes it again; not pushing")
			facts.Loop = true
			break
		}
		pushed, err := s.CommitPackage(ctx, opts.Identity, PackageCommit{Branch: req.Branch, Parent: head, Lease: head,
			Dir: dir, Files: run.out, Message: renderCommitMessage(pkg, head, run.changes),
			Trailer: packages.Trailer{Package: pkg, WorkspaceName: ws, Revision: "0",
				Task: &packages.Task{Type: packages.TaskRender}}})
		if err == nil {
			out.Head, out.Pushed = pushed, true
			facts.Head, facts.Pushed, facts.Files = pushed, true, run.out
			break
		}
		if errors.Is(err, gitstore.ErrNoChanges) {
			// git sees no change where the byte comparison did (cannot
			// happen for regular files): the branch holds the result
			facts.Changes, out.Differs = nil, nil
			break
		}
		if !errors.Is(err, gitstore.ErrLeaseBroken) {
			// the render is reported (failed: the result could not be
			// pushed) and the error logged
			facts.Err = fmt.Errorf("the rendered result could not be pushed to %s: %w", req.Branch, err)
			out.Differs = nil
			if rerr := reportRender(ctx, s, api, rec, facts, out); rerr != nil {
				return out, fmt.Errorf("render draft %s: %w", req.Branch, errors.Join(err, rerr))
			}
			return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
		}
		if attempt >= maxAttempts {
			return out, fmt.Errorf("render draft %s: the branch kept moving (%d renders): %w", req.Branch, attempt, err)
		}
		if err := s.Git.Fetch(ctx, gitstore.BranchRefSpec(req.Branch)); err != nil {
			if errors.Is(err, gitstore.ErrNotFound) {
				log.Info("draft branch was deleted while rendering")
				return out, nil
			}
			return out, fmt.Errorf("render draft %s: fetch after a broken lease: %w", req.Branch, err)
		}
		moved, err := s.Git.ResolveRef(ctx, ref)
		if err != nil {
			return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
		}
		log.WithField("rendered", head.String()).WithField("head", moved.String()).
			Info("draft moved while rendering; rendering its new head")
		if _, err := rec.complete(ctx, movedReport(pkg, req.Branch, moved)); err != nil {
			return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
		}
		head = moved
	}

	if err := reportRender(ctx, s, api, rec, facts, out); err != nil {
		return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
	}
	log.WithFields(map[string]any{"conclusion": out.Conclusion, "pushed": out.Pushed, "head": out.Head.String(),
		"attempts": out.Attempts}).Info("draft rendered")
	return out, nil
}

// isBotRenderCommit reports whether commit is the bot's own "Render" commit
// of pkg: authored by the bot's identity, with a render task trailer.
func isBotRenderCommit(ctx context.Context, s *Session, commit plumbing.Hash, pkg string, id Identity) (bool, error) {
	if id.Name == "" {
		id = DefaultIdentity
	}
	msg, author, err := commitMessage(ctx, s.Git, commit)
	if err != nil {
		return false, err
	}
	t, ok := packages.FindTrailer(msg)
	return ok && author == id.Name && t.Package == pkg && t.Task != nil && t.Task.Type == packages.TaskRender, nil
}

// renderCommitMessage is "Render <package>" and a body naming the rendered
// commit and the files the render changed (at most 20).
func renderCommitMessage(pkg string, rendered plumbing.Hash, changes []fileChange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Render %s\n\nporchbot rendered %s with the Kptfile pipeline:\n", pkg, abbrevHash(rendered))
	for i, c := range changes {
		if i == 20 {
			fmt.Fprintf(&b, "- … and %d more\n", len(changes)-20)
			break
		}
		fmt.Fprintf(&b, "- %s %s\n", c.Kind, c.Path)
	}
	return b.String()
}

// movedReport concludes the check of a draft head the branch moved away
// from while it rendered: the new head is rendered instead.
func movedReport(pkg, branch string, moved plumbing.Hash) CheckReport {
	return CheckReport{Name: RenderCheckName, Conclusion: ConclusionNeutral,
		Title: fmt.Sprintf("Render of %s superseded", pkg),
		Summary: fmt.Sprintf("`%s` moved to %s while this commit rendered; porchbot renders the new head instead.\n",
			branch, moved)}
}
