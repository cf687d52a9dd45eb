package rendercheck

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/words"
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
func RenderDraft(ctx context.Context, s *core.Session, api CheckRunAPI, req RenderRequest) (_ *RenderOutcome, err error) {
	pkg, ws, err := packages.CheckDraftBranchName(req.Branch)
	if err != nil {
		return nil, fmt.Errorf("render draft: %w", err)
	}
	opts := req.Options
	maxAttempts := opts.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultRenderAttempts
	}
	dir := PackageDir(s.Config, pkg)
	commitMode := s.Config == nil || s.Config.Render.OnDraftPush != config.OnDraftPushCheck
	log := s.Log.WithFields(map[string]any{"package": pkg, "ref": req.Branch})
	ref := plumbing.NewBranchReferenceName(req.Branch).String()
	out := &RenderOutcome{Package: pkg, Workspace: ws, Dir: dir}

	head, err := s.ResolveRef(ctx, ref)
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
	var (
		facts    renderFacts
		files    map[string][]byte
		gone     bool
		skipped  *attemptVerdict
		buildErr error
	)
	res, err := s.CommitUnderLease(ctx, opts.Identity, req.Branch, head, maxAttempts, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		if gone = head.IsZero(); gone {
			log.Info("draft branch was deleted while rendering")
			return nil, nil // an open attempt is concluded superseded on return
		}
		if rec != nil {
			// the branch moved under the lease: the head rendered before is
			// superseded, its check says so, and the new head is rendered
			log.WithField("head", head.String()).Info("draft moved while rendering; rendering its new head")
			if _, err := rec.complete(ctx, movedReport(pkg, req.Branch, head)); err != nil {
				buildErr = err
				return nil, err
			}
			rec = nil
		}
		out.Attempts++
		c, err := renderDraftAt(ctx, s, api, req, head, commitMode, &rec, &facts, &files, &skipped, out)
		buildErr = err
		return c, err
	})
	switch {
	case gone:
		return out, nil
	case skipped != nil:
		out.noRender(*skipped)
		return out, nil
	case err == nil && res.Pushed:
		out.Head, out.Pushed = res.Head, true
		facts.Head, facts.Pushed, facts.Files = res.Head, true, files
	case errors.Is(err, gitstore.ErrNoChanges):
		// git sees no change where the byte comparison did (cannot
		// happen for regular files): the branch holds the result
		facts.Changes, out.Differs = nil, nil
	case err != nil && (buildErr != nil || errors.Is(err, gitstore.ErrLeaseBroken)):
		return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
	case err != nil:
		// the render is reported (failed: the result could not be pushed)
		// and the error logged
		facts.Err = fmt.Errorf("the rendered result could not be pushed to %s: %w", req.Branch, err)
		out.Differs = nil
		if rerr := reportRender(ctx, s, api, rec, facts, out); rerr != nil {
			return out, fmt.Errorf("render draft %s: %w", req.Branch, errors.Join(err, rerr))
		}
		return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
	}

	if err := reportRender(ctx, s, api, rec, facts, out); err != nil {
		return out, fmt.Errorf("render draft %s: %w", req.Branch, err)
	}
	log.WithFields(map[string]any{"conclusion": out.Conclusion, "pushed": out.Pushed, "head": out.Head.String(),
		"attempts": out.Attempts}).Info("draft rendered")
	return out, nil
}

// renderDraftAt renders the draft at head for RenderDraft's lease loop:
// it records the attempt (*rec), renders, fills facts and out, and returns
// the Render commit to push (nil: nothing to push, or *skipped says why the
// head is not rendered at all).
func renderDraftAt(ctx context.Context, s *core.Session, api CheckRunAPI, req RenderRequest, head plumbing.Hash, commitMode bool,
	rec **renderAttempt, facts *renderFacts, files *map[string][]byte, skipped **attemptVerdict, out *RenderOutcome) (*core.PackageCommit, error) {
	pkg, ws, dir, opts := out.Package, out.Workspace, out.Dir, req.Options
	run, err := loadRun(ctx, s, head, dir)
	if err != nil {
		return nil, fmt.Errorf("render at %s: %w", words.ShortSHA(head.String()), err)
	}
	var verdict attemptVerdict
	*rec, verdict, err = beginRender(ctx, s, api, head, pkg, opts, req.Retry && out.Attempts == 1)
	if err != nil {
		return nil, err
	}
	if *rec == nil {
		out.Head, out.Rendered = head, head
		*skipped = &verdict
		return nil, nil
	}
	if err := run.Render(ctx, s, dir, false, opts); err != nil {
		return nil, fmt.Errorf("render at %s: %w", words.ShortSHA(head.String()), err)
	}
	*facts = run.facts(pkg, dir, head)
	out.Head, out.Rendered, out.Result, out.Differs = head, head, run.result, changedPaths(run.changes)
	var saved []treediff.Change // what a failed render saved, when render.pushOnFailure pushes it
	if commitMode && run.Err != nil && run.saved != nil && s.Config != nil && s.Config.Render.PushOnFailure {
		saved = treediff.Files(run.Files, run.saved).Changes()
	}
	pushSaved := len(saved) > 0
	if !pushSaved && (!commitMode || run.missing || run.Err != nil || len(run.changes) == 0) {
		return nil, nil
	}
	own, err := isBotRenderCommit(ctx, s, head, pkg, opts.Identity)
	if err != nil {
		return nil, err
	}
	if pushSaved {
		if own {
			return nil, nil // a failed render of the bot's own commit: it failed, and that is reported
		}
		facts.Changes, facts.Saved = saved, true
		*files = run.saved
		return &core.PackageCommit{Parent: head,
			Dir: dir, Files: run.saved, Message: savedRenderCommitMessage(pkg, head, saved),
			Trailer: packages.Trailer{Package: pkg, WorkspaceName: ws, Revision: "0",
				Task: &packages.Task{Type: packages.TaskRender}}}, nil
	}
	if own {
		s.Log.WithFields(map[string]any{"package": pkg, "ref": req.Branch, "files": out.Differs}).
			Warn("rendering the bot's own Render commit changes it again; not pushing")
		facts.Loop = true
		return nil, nil
	}
	*files = run.Out
	return &core.PackageCommit{Parent: head,
		Dir: dir, Files: run.Out, Message: renderCommitMessage(pkg, head, run.changes),
		Trailer: packages.Trailer{Package: pkg, WorkspaceName: ws, Revision: "0",
			Task: &packages.Task{Type: packages.TaskRender}}}, nil
}

// isBotRenderCommit reports whether commit is the bot's own "Render" commit
// of pkg: authored by the bot's identity, with a render task trailer.
func isBotRenderCommit(ctx context.Context, s *core.Session, commit plumbing.Hash, pkg string, id core.Identity) (bool, error) {
	if id.Name == "" {
		id = core.DefaultIdentity
	}
	msg, author, err := core.CommitMessage(ctx, s.Git, commit)
	if err != nil {
		return false, err
	}
	t, ok := packages.FindTrailer(msg)
	return ok && author == id.Name && t.Package == pkg && t.Task != nil && t.Task.Type == packages.TaskRender, nil
}

// renderCommitMessage is "Render <package>" and a body naming the rendered
// commit and the files the render changed (at most 20).
func renderCommitMessage(pkg string, rendered plumbing.Hash, changes []treediff.Change) string {
	return listedCommitMessage("Render "+pkg,
		fmt.Sprintf("porchbot rendered %s with the Kptfile pipeline:", words.ShortSHA(rendered.String())), changes)
}

// savedRenderCommitMessage is "Render <package> (failed)" and a body
// saying why a failed render was pushed, naming the files it changed (at
// most 20).
func savedRenderCommitMessage(pkg string, rendered plumbing.Hash, changes []treediff.Change) string {
	return listedCommitMessage("Render "+pkg+" (failed)",
		fmt.Sprintf("porchbot rendered %s with the Kptfile pipeline, and the render failed.\n"+
			"The Kptfile's kpt.dev/save-on-render-failure and render.pushOnFailure ask\n"+
			"for what it rendered up to the failure, for debugging:", words.ShortSHA(rendered.String())), changes)
}

// listedCommitMessage is subject, a blank line, intro and the changes, one
// line each (at most 20).
func listedCommitMessage(subject, intro string, changes []treediff.Change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n", subject, intro)
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
func movedReport(pkg, branch string, moved plumbing.Hash) core.CheckReport {
	return core.CheckReport{Name: core.RenderCheckName, Conclusion: core.ConclusionNeutral,
		Title: fmt.Sprintf("Render of %s superseded", pkg),
		Summary: fmt.Sprintf("%s moved to %s while this commit rendered; porchbot renders the new head instead.\n",
			mdquote.Code(branch), moved)}
}
