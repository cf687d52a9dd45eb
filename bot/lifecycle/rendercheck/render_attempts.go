package rendercheck

// Poison work (issue #8 §2): a render that takes the process down (killed
// for memory, say) must not be retried forever by the next process's
// resync. Every render first records its attempt on GitHub, where every
// replica and every restart sees it: an in_progress porchbot/render check
// run on the commit, its external_id "render-attempt=N started=UNIX". A
// render that ends, however it ends, completes that check run. One that is
// still in progress long after it started (RenderOptions.StaleAfter) was
// left by a process that died; the next render of the commit counts it and
// tries once more, and after MaxRenderAttempts unfinished attempts the
// check is concluded as failed, "quarantined", with the reason, and the
// commit is not rendered again (a new push is a new commit, rendered
// afresh).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// MaxRenderAttempts is how many renders of one commit may die unfinished
// before the commit is quarantined.
const MaxRenderAttempts = 2

// DefaultRenderStaleAfter is how long an in_progress render check stays
// the sign of a render still running (on this or another replica); after
// it, the render is taken for dead. It is well above the render's wall-time
// bound.
const DefaultRenderStaleAfter = 15 * time.Minute

// CheckRunAPI is the part of the GitHub Checks API the render steps use
// (s.Hub): CheckRunWriter, and the list of a
// commit's check runs in which earlier attempts are found.
type CheckRunAPI interface {
	core.CheckRunWriter
	ListCheckRuns(ctx context.Context, owner, repo, ref string, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error)
}

// conclusionCancelled concludes a render that porchbot interrupted: no
// verdict, rendered again by the next resync.
const conclusionCancelled = "cancelled"

// attemptPrefix starts the external_id of an attempt's check run.
const attemptPrefix = "render-attempt="

// renderAttempt is the in_progress check run a render records itself on.
type renderAttempt struct {
	api  CheckRunAPI
	repo core.Repo
	head plumbing.Hash
	id   int64
	n    int  // attempts of this commit so far, this one included
	done bool // the check run was completed
}

// attemptVerdict is what the earlier attempts on a commit say to do.
type attemptVerdict int

const (
	attemptRender     attemptVerdict = iota // render (the first time, or again)
	attemptRunning                          // a live render is under way elsewhere
	attemptQuarantine                       // too many renders died: conclude and stop
)

// externalAttempt parses "render-attempt=N started=UNIX".
func externalAttempt(id string) (n int, started time.Time, ok bool) {
	rest, found := strings.CutPrefix(id, attemptPrefix)
	if !found {
		return 0, time.Time{}, false
	}
	nStr, startStr, _ := strings.Cut(rest, " started=")
	startStr, _, _ = strings.Cut(startStr, " ")
	n, err := strconv.Atoi(nStr)
	if err != nil || n < 1 {
		return 0, time.Time{}, false
	}
	sec, err := strconv.ParseInt(startStr, 10, 64)
	if err != nil {
		return 0, time.Time{}, false
	}
	return n, time.Unix(sec, 0), true
}

func attemptExternalID(n int, started time.Time, pkg string) string {
	return fmt.Sprintf("%s%d started=%d%s%s", attemptPrefix, n, started.Unix(), attemptPackage, pkg)
}

// attemptPackage precedes, in a render attempt's external id, the package
// rendered: a commit that changes several packages carries a render check
// run for each.
const attemptPackage = " pkg="

// renderRunPackage is the package a porchbot/render check run renders (""
// for a run recorded without it).
func renderRunPackage(run hub.CheckRun) string {
	_, pkg, _ := strings.Cut(run.ExternalID, attemptPackage)
	return pkg
}

// ofPackage keeps the runs of pkg (and those recorded without a package).
func ofPackage(runs []hub.CheckRun, pkg string) []hub.CheckRun {
	var out []hub.CheckRun
	for _, r := range runs {
		if p := renderRunPackage(r); p == "" || p == pkg {
			out = append(out, r)
		}
	}
	return out
}

// judgeAttempts reads the newest porchbot/render check run of a commit:
// none or completed, render; in progress and recent, someone is rendering;
// in progress and stale, its render died: render again unless that was
// the last allowed attempt. prior is the attempts recorded so far.
func judgeAttempts(runs []hub.CheckRun, now time.Time, staleAfter time.Duration) (v attemptVerdict, newest *hub.CheckRun, prior int) {
	newest = newestRenderRun(runs)
	if newest == nil || newest.Status == "completed" {
		return attemptRender, nil, 0
	}
	n, started, ok := externalAttempt(newest.ExternalID)
	if !ok { // an in_progress run porchbot did not record: one attempt
		n, started = 1, newest.StartedAt
	}
	if now.Sub(started) < staleAfter {
		return attemptRunning, newest, n
	}
	if n >= MaxRenderAttempts {
		return attemptQuarantine, newest, n
	}
	return attemptRender, newest, n
}

// newestRenderRun is the check run created last among a commit's render
// check runs (listed by name).
func newestRenderRun(runs []hub.CheckRun) *hub.CheckRun {
	var newest *hub.CheckRun
	for i := range runs {
		if newest == nil || runs[i].ID > newest.ID {
			newest = &runs[i]
		}
	}
	return newest
}

// RenderWanted reports whether resync should hand a commit to the render
// step, given the commit's check runs: when it has no porchbot/render check
// run yet, its newest is in progress (the render step decides whether
// that one is still running, died and is retried, or is quarantined), or
// porchbot interrupted it. A completed check means the commit was rendered
// (or quarantined).
func RenderWanted(runs []hub.CheckRun) bool {
	newest := newestRenderRun(runs)
	return newest == nil || newest.Status != "completed" || newest.Conclusion == conclusionCancelled
}

// beginRender records a render attempt of the commit head before the
// render starts (one REST call). A retry (resync's: after a restart, the
// only way a render that killed its process comes back, since GitHub does
// not redeliver events) first reads the commit's check runs (one more) and
// counts the attempts that never finished; it returns nil and the verdict
// when there is nothing to render: another replica is rendering it, or it
// is quarantined (then the check run is concluded, with quarantine's
// reason, before returning). A fresh event (a push, a command) starts
// counting at one.
func beginRender(ctx context.Context, s *core.Session, api CheckRunAPI, head plumbing.Hash, pkg string, opts RenderOptions, retry bool) (*renderAttempt, attemptVerdict, error) {
	now := time.Now().UTC()
	v, newest, prior := attemptRender, (*hub.CheckRun)(nil), 0
	if retry {
		res, _, err := api.ListCheckRuns(ctx, s.Repo.Owner, s.Repo.Name, head.String(),
			hub.CheckQuery{Name: core.RenderCheckName, Page: hub.Page{PerPage: 20}})
		if err != nil {
			return nil, attemptRender, fmt.Errorf("check runs of %s: %w", words.ShortSHA(head.String()), err)
		}
		stale := opts.StaleAfter
		if stale <= 0 {
			stale = DefaultRenderStaleAfter
		}
		v, newest, prior = judgeAttempts(ofPackage(res.Runs, pkg), now, stale)
	}
	log := s.Log.WithFields(map[string]any{"package": pkg, "ref": head.String(), "attempts": prior})
	switch v {
	case attemptRunning:
		log.Info("a render of this commit is under way; not starting another")
		return nil, v, nil
	case attemptQuarantine:
		a := &renderAttempt{api: api, repo: s.Repo, head: head, id: newest.ID, n: prior}
		if _, err := a.complete(ctx, quarantineReport(pkg, head, prior)); err != nil {
			return nil, v, fmt.Errorf("quarantine the render of %s: %w", words.ShortSHA(head.String()), err)
		}
		log.Warn("render quarantined: earlier renders of this commit never finished")
		return nil, v, nil
	}
	a := &renderAttempt{api: api, repo: s.Repo, head: head, n: prior + 1}
	var err error
	ext := attemptExternalID(a.n, now, pkg)
	title := fmt.Sprintf("Rendering %s", pkg)
	summary := fmt.Sprintf("porchbot is rendering %s at %s (attempt %d).", mdquote.Code(pkg), head, a.n)
	if newest != nil {
		// an earlier attempt died: this one takes over its check run
		log.Warn("an earlier render of this commit never finished; trying again")
		a.id = newest.ID
		_, err = api.UpdateCheckRun(ctx, s.Repo.Owner, s.Repo.Name, a.id, hub.CheckRunWrite{
			Name: core.RenderCheckName, ExternalID: ext, Status: "in_progress",
			Output: &hub.CheckOutput{Title: title, Summary: summary}})
	} else {
		var run hub.CheckRun
		run, err = api.CreateCheckRun(ctx, s.Repo.Owner, s.Repo.Name, hub.CheckRunWrite{
			Name: core.RenderCheckName, HeadSHA: head.String(), ExternalID: ext, Status: "in_progress",
			StartedAt: now, Output: &hub.CheckOutput{Title: title, Summary: summary}})
		a.id = run.ID
	}
	if err != nil {
		return nil, attemptRender, fmt.Errorf("record the render of %s: %w", words.ShortSHA(head.String()), err)
	}
	return a, attemptRender, nil
}

// complete concludes the attempt's check run with rep (on the attempt's
// commit): one REST call, plus one per further 50 annotations.
func (a *renderAttempt) complete(ctx context.Context, rep core.CheckReport) (hub.CheckRun, error) {
	now := time.Now().UTC()
	_, updates := core.CheckRequests(rep, a.head, now)
	first := completedUpdate(rep, now)
	run, err := a.api.UpdateCheckRun(ctx, a.repo.Owner, a.repo.Name, a.id, first)
	if err != nil {
		return hub.CheckRun{}, fmt.Errorf("complete check run %s on %s: %w", rep.Name, words.ShortSHA(a.head.String()), err)
	}
	a.done = true
	for i, u := range updates {
		if _, err := a.api.UpdateCheckRun(ctx, a.repo.Owner, a.repo.Name, a.id, u); err != nil {
			return run, fmt.Errorf("check run %s on %s: annotations batch %d: %w", rep.Name, words.ShortSHA(a.head.String()), i+2, err)
		}
	}
	return run, nil
}

// abandon completes the attempt's check run when the render step ends
// without a report of its own: the machinery failed (the error is the
// report), the branch kept moving or was deleted (neutral: later heads
// have their own renders), or porchbot is stopping (cancelled: rendered
// again by the next resync). A completed attempt is left alone.
func (a *renderAttempt) abandon(ctx context.Context, pkg string, cause error) {
	if a == nil || a.done {
		return
	}
	var rep core.CheckReport
	switch {
	case ctx.Err() != nil:
		rep = core.CheckReport{Name: core.RenderCheckName, Conclusion: conclusionCancelled,
			Title: fmt.Sprintf("Render of %s interrupted", pkg),
			Summary: fmt.Sprintf("porchbot stopped before the render of %s at %s finished; "+
				"it renders it again on its next resync.\n", mdquote.Code(pkg), a.head)}
	case cause == nil, errors.Is(cause, gitstore.ErrLeaseBroken):
		rep = core.CheckReport{Name: core.RenderCheckName, Conclusion: core.ConclusionNeutral,
			Title: fmt.Sprintf("Render of %s superseded", pkg),
			Summary: fmt.Sprintf("The branch moved or was deleted while %s rendered; its later heads are rendered "+
				"on their own.\n", a.head)}
	default:
		rep = core.CheckReport{Name: core.RenderCheckName, Conclusion: core.ConclusionFailure,
			Title:   fmt.Sprintf("Render of %s failed", pkg),
			Summary: fmt.Sprintf("porchbot could not render %s at %s:\n\n%s", mdquote.Code(pkg), a.head, mdquote.Fence("Error: "+cause.Error()))}
	}
	// the step's context may be what ended it: report on a fresh one
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, _ = a.complete(ctx, rep)
}

// completedUpdate is the update that completes a check run with rep's
// first batch of annotations.
func completedUpdate(rep core.CheckReport, now time.Time) hub.CheckRunWrite {
	create, _ := core.CheckRequests(rep, plumbing.ZeroHash, now)
	return hub.CheckRunWrite{Name: rep.Name, Status: "completed",
		Conclusion: create.Conclusion, CompletedAt: create.CompletedAt, Output: create.Output}
}

// quarantineReport is the check of a commit whose renders kept dying.
func quarantineReport(pkg string, head plumbing.Hash, attempts int) core.CheckReport {
	return core.CheckReport{Name: core.RenderCheckName, Conclusion: core.ConclusionFailure,
		Title: fmt.Sprintf("Render of %s quarantined", pkg),
		Summary: fmt.Sprintf("porchbot started rendering %s at %s %d times and no render finished: the process "+
			"rendering it stopped each time (killed for memory, or crashed). The commit is quarantined: porchbot "+
			"will not render it again.\n\nLook for what makes this package expensive to render (very large or "+
			"deeply nested files, YAML aliases, a function that loops or allocates without bound), fix it and "+
			"push a new commit; porchbot renders every new commit afresh.\n", mdquote.Code(pkg), head, attempts)}
}
