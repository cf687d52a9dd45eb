package rendercheck_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/hub"
)

// draftRenderHooks are the App's resync hooks for drafts: a real render,
// as a retry.
type draftRenderHooks struct {
	opts  rendercheck.RenderOptions
	mu    sync.Mutex
	calls int
}

func (d *draftRenderHooks) RenderDraft(ctx context.Context, s *core.Session, branch string, head plumbing.Hash) error {
	d.mu.Lock()
	d.calls++
	d.mu.Unlock()
	_, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: head,
		Options: d.opts, Retry: true})
	return err
}

func (d *draftRenderHooks) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}

func (d *draftRenderHooks) EvaluateProposal(context.Context, *core.Session, hub.Pull) error {
	return nil
}

// TestRenderThatKillsTheProcessIsQuarantined: a render that never finishes
// (the process rendering it died: killed for memory, say) leaves its
// in_progress check on GitHub. Each resync is a new process: the first
// renders (and dies), the second sees one unfinished attempt and tries
// again (and dies), the third sees two and quarantines the head, reported
// on its check run; the fourth does not render it again.
func TestRenderThatKillsTheProcessIsQuarantined(t *testing.T) {
	h := lifecycletest.New(t)
	h.Seed(t, rtCatalog(t, "basens"))
	const branch = "drafts/basens/bomb"
	head := rtPushDraft(t, h, branch, rtWith(rtCatalog(t, "basens"), map[string][]byte{
		"basens/bomb.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n")}))

	// a render "kills the process": it never returns until the test ends
	dead, cancelDead := context.WithCancel(context.Background())
	var hung sync.WaitGroup
	started := make(chan string, 10)
	restore := rendercheck.SetRenderStarted(func(ctx context.Context, dir string) {
		started <- dir
		<-dead.Done()
	})
	t.Cleanup(func() { cancelDead(); hung.Wait(); restore() })

	hooks := &draftRenderHooks{opts: rendercheck.RenderOptions{StaleAfter: time.Nanosecond}}
	runResync := func() (*resync.Report, error) {
		s := h.Open(t) // a new process
		return resync.Repository(context.Background(), s, resync.NewAPI(s.Hub), resync.Deps{Hooks: hooks})
	}
	crash := func(n int) {
		t.Helper()
		hung.Add(1)
		go func() {
			defer hung.Done()
			ctx, cancel := context.WithCancel(dead)
			defer cancel()
			s := h.Open(t)
			_, _ = resync.Repository(ctx, s, resync.NewAPI(s.Hub), resync.Deps{Hooks: hooks})
		}()
		if dir := <-started; dir != "basens" {
			t.Fatalf("rendered %s", dir)
		}
		run := h.OneCheck(t, head, core.RenderCheckName)
		if run.GetStatus() != "in_progress" || !strings.HasPrefix(run.GetExternalID(), fmt.Sprintf("render-attempt=%d ", n)) {
			t.Fatalf("attempt %d: check %s %q", n, run.GetStatus(), run.GetExternalID())
		}
	}
	crash(1)
	crash(2)

	// the third process quarantines the head instead of rendering it
	if _, err := runResync(); err != nil {
		t.Fatal(err)
	}
	select {
	case dir := <-started:
		t.Fatalf("rendered %s a third time", dir)
	default:
	}
	run := h.OneCheck(t, head, core.RenderCheckName)
	if run.GetStatus() != "completed" || run.GetConclusion() != "failure" ||
		!strings.Contains(run.GetOutput().GetTitle(), "Render of basens quarantined") ||
		!strings.Contains(run.GetOutput().GetSummary(), "2 times and no render finished") {
		t.Fatalf("quarantine check: %s %s %q\n%s", run.GetStatus(), run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// and nobody renders it again
	calls := hooks.count()
	if _, err := runResync(); err != nil {
		t.Fatal(err)
	}
	if hooks.count() != calls {
		t.Error("a quarantined head was handed to the render again")
	}
	if n := len(h.CheckRuns(t, head, core.RenderCheckName)); n != 1 {
		t.Errorf("%d render check runs on the head, want the one", n)
	}

	// a new push is a new commit: rendered afresh
	cancelDead()
	hung.Wait()
	restore()
	next := rtPushDraft(t, h, branch, rtCatalog(t, "basens"))
	if _, err := runResync(); err != nil {
		t.Fatal(err)
	}
	if c := h.OneCheck(t, next, core.RenderCheckName); c.GetStatus() != "completed" || c.GetConclusion() == "failure" {
		t.Errorf("the next push: %s %s", c.GetStatus(), c.GetConclusion())
	}
}

// TestRenderRetryLeavesALiveRenderAlone: an in_progress render check that
// is recent is a render under way elsewhere (another replica): a retry
// neither renders nor quarantines it.
func TestRenderRetryLeavesALiveRenderAlone(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "basens"))
	const branch = "drafts/basens/busy"
	head := rtPushDraft(t, h, branch, rtWith(rtCatalog(t, "basens"), map[string][]byte{
		"basens/x.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")}))
	s := h.Open(t)
	now := time.Now()
	if _, err := s.Hub.CreateCheckRun(ctx, "acme", "catalog", hub.CheckRunWrite{
		Name: core.RenderCheckName, HeadSHA: head.String(), Status: "in_progress",
		ExternalID: "render-attempt=2 started=" + strconv.FormatInt(now.Unix(), 10), StartedAt: now}); err != nil {
		t.Fatal(err)
	}
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: head, Retry: true})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Running || out.Quarantined || out.CheckRunID != 0 {
		t.Fatalf("outcome %+v", out)
	}
	if run := h.OneCheck(t, head, core.RenderCheckName); run.GetStatus() != "in_progress" {
		t.Errorf("the live render's check: %s", run.GetStatus())
	}
}
