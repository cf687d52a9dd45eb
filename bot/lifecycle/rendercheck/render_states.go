package rendercheck

import (
	"context"
	"strings"
	"sync"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
)

// The approval verdict's render requirement (rendercheck.RenderProblem) needs
// the porchbot/render state on a proposal's head. porchbot renders in
// process, so the renders this process reports are remembered
// (RenderStates, filled by the check-runs client RenderStates.Checks wraps)
// and cost nothing; any other head costs one check-runs list call
// (renderStateAt). An evaluation that found the render unfinished leaves
// its pull request waiting on the head: when a render of that head
// finishes here, TakeReady hands it back to be evaluated again, so the
// approval check does not stay behind its render.

// renderStatesMax bounds the heads remembered (oldest forgotten first).
const renderStatesMax = 2048

// RenderStates remembers the porchbot/render check runs this process
// wrote, by repository and head. The zero value is ready; nil remembers
// nothing.
type RenderStates struct {
	mu sync.Mutex
	// runs: "repo@head" → check run id → its package and state.
	runs  map[string]map[int64]RenderCheckState
	heads map[int64]string // check run id → "repo@head"
	order []string
	// waiting: "repo@head" → pull requests whose evaluation found the
	// render unfinished there.
	waiting map[string]map[int]bool
}

func renderStateKey(repo, head string) string {
	return strings.ToLower(repo) + "@" + strings.ToLower(head)
}

// RenderCheckState is one porchbot/render check run: the package it renders and
// its state.
type RenderCheckState struct {
	pkg string
	st  RenderState
}

// RunOf is a check run as a renderCheckState.
func RunOf(run hub.CheckRun) RenderCheckState {
	return RenderCheckState{pkg: renderRunPackage(run), st: renderStateOf(run)}
}

// record notes check run id on key.
func (c *RenderStates) record(key string, id int64, run RenderCheckState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs, c.heads, c.waiting = map[string]map[int64]RenderCheckState{}, map[int64]string{}, map[string]map[int]bool{}
	}
	if _, ok := c.runs[key]; !ok {
		c.runs[key] = map[int64]RenderCheckState{}
		c.order = append(c.order, key)
		for len(c.order) > renderStatesMax {
			old := c.order[0]
			c.order = c.order[1:]
			for rid := range c.runs[old] {
				delete(c.heads, rid)
			}
			delete(c.runs, old)
			delete(c.waiting, old)
		}
	}
	c.runs[key][id] = run
	c.heads[id] = key
}

// Observe notes a porchbot/render check run seen in a check_run event
// (written by another replica, or by this one).
func (c *RenderStates) Observe(repo string, run hub.CheckRun) {
	if c == nil || run.Name != core.RenderCheckName || run.HeadSHA == "" || run.ID == 0 {
		return
	}
	c.record(renderStateKey(repo, run.HeadSHA), run.ID, RunOf(run))
}

// State is the render state of head in repo as this process reported it
// (ok false: it reported no render there).
func (c *RenderStates) State(repo, head string) (RenderState, bool) {
	if c == nil {
		return RenderUnknown, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	runs, ok := c.runs[renderStateKey(repo, head)]
	if !ok || len(runs) == 0 {
		return RenderUnknown, false
	}
	return NewestPerPackage(runs), true
}

// Wait notes that pull request n was judged with the render of head
// unfinished or not known.
func (c *RenderStates) Wait(repo, head string, n int) {
	if c == nil {
		return
	}
	key := renderStateKey(repo, head)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		c.runs, c.heads, c.waiting = map[string]map[int64]RenderCheckState{}, map[int64]string{}, map[string]map[int]bool{}
	}
	if c.waiting[key] == nil {
		for k := range c.waiting { // bounded: a forgotten wait is caught up by the resync
			if len(c.waiting) < renderStatesMax {
				break
			}
			delete(c.waiting, k)
		}
		c.waiting[key] = map[int]bool{}
	}
	c.waiting[key][n] = true
}

// TakeReady returns (and forgets) the pull requests of repo waiting on a
// head whose render has now finished here.
func (c *RenderStates) TakeReady(repo string) []int {
	if c == nil {
		return nil
	}
	prefix := strings.ToLower(repo) + "@"
	var ready []int
	c.mu.Lock()
	for key, prs := range c.waiting {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		if len(c.runs[key]) == 0 || NewestPerPackage(c.runs[key]) == RenderPending {
			// no render reported here yet, or still running
			continue
		}
		for n := range prs {
			ready = append(ready, n)
		}
		delete(c.waiting, key)
	}
	c.mu.Unlock()
	return ready
}

// Checks wraps the check-runs client of repo so that the porchbot/render
// runs written through it are remembered.
func (c *RenderStates) Checks(repo string, api CheckRunAPI) CheckRunAPI {
	if c == nil {
		return api
	}
	return &renderRecorder{CheckRunAPI: api, states: c, repo: repo}
}

type renderRecorder struct {
	CheckRunAPI
	states *RenderStates
	repo   string
}

// CreateCheckRun implements CheckRunWriter.
func (r *renderRecorder) CreateCheckRun(ctx context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error) {
	run, err := r.CheckRunAPI.CreateCheckRun(ctx, owner, repo, w)
	if err == nil && w.Name == core.RenderCheckName {
		r.states.record(renderStateKey(r.repo, w.HeadSHA), run.ID, RunOf(run))
	}
	return run, err
}

// UpdateCheckRun implements CheckRunWriter.
func (r *renderRecorder) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error) {
	run, err := r.CheckRunAPI.UpdateCheckRun(ctx, owner, repo, id, w)
	if err == nil && run.Name == core.RenderCheckName {
		key := renderStateKey(r.repo, run.HeadSHA)
		if run.HeadSHA == "" {
			r.states.mu.Lock()
			key = r.states.heads[id]
			r.states.mu.Unlock()
		}
		if key != "" {
			r.states.record(key, id, RunOf(run))
		}
	}
	return run, err
}

// renderStateOf is one render check run's state.
func renderStateOf(run hub.CheckRun) RenderState {
	if run.Status != "completed" {
		return RenderPending
	}
	switch run.Conclusion {
	case "success", "neutral", "skipped":
		return RenderPassed
	case "cancelled", "stale":
		return RenderPending // interrupted: rendered again
	}
	return RenderFailed
}

// NewestPerPackage is the state of a head from its render check runs: per
// package, its newest run counts (an interrupted or failed attempt that a
// later render of the same package replaced does not); then failed if any
// package failed, else pending if any is, else passed. Runs recorded
// without a package each count.
func NewestPerPackage(runs map[int64]RenderCheckState) RenderState {
	newest := map[string]int64{}
	var sts []RenderState
	for id, r := range runs {
		if r.pkg == "" {
			sts = append(sts, r.st)
		} else if id > newest[r.pkg] {
			newest[r.pkg] = id
		}
	}
	for _, id := range newest {
		sts = append(sts, runs[id].st)
	}
	return combineRenderStates(sts)
}

// combineRenderStates: failed if any failed, else pending if any is,
// else passed.
func combineRenderStates(sts []RenderState) RenderState {
	out := RenderPassed
	for _, st := range sts {
		switch st {
		case RenderFailed:
			return RenderFailed
		case RenderPending:
			out = RenderPending
		}
	}
	return out
}

// RenderCheckLister lists a commit's check runs (a part of hub.API).
type RenderCheckLister interface {
	ListCheckRuns(ctx context.Context, owner, repo, ref string, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error)
}
