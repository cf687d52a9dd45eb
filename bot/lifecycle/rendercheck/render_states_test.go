package rendercheck

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
)

// fakeRenderChecks answers check run writes with the run as written.
type fakeRenderChecks struct{ next int64 }

func (f *fakeRenderChecks) CreateCheckRun(_ context.Context, _, _ string, w hub.CheckRunWrite) (hub.CheckRun, error) {
	f.next++
	return hub.CheckRun{ID: f.next, Name: w.Name, HeadSHA: w.HeadSHA, Status: w.Status, Conclusion: w.Conclusion}, nil
}

func (f *fakeRenderChecks) UpdateCheckRun(_ context.Context, _, _ string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error) {
	return hub.CheckRun{ID: id, Name: w.Name, Status: w.Status, Conclusion: w.Conclusion}, nil
}

func (f *fakeRenderChecks) ListCheckRuns(context.Context, string, string, string, hub.CheckQuery) (hub.CheckRuns, hub.Next, error) {
	return hub.CheckRuns{}, hub.Next{}, nil
}

// TestRenderStatesFollowTheRunsWritten: a render run written through the
// wrapper is pending until it completes; a failure of any package's run
// fails the head; a proposal waiting on the head is handed back once, when
// the render there finished; other check names and repositories are not
// mixed in; the waits are bounded.
func TestRenderStatesFollowTheRunsWritten(t *testing.T) {
	ctx := context.Background()
	c := &RenderStates{}
	api := c.Checks("acme/catalog", &fakeRenderChecks{})
	const head = "0123456789012345678901234567890123456789"
	completedFailure := func(name string) {
		t.Helper()
		if _, err := api.CreateCheckRun(ctx, "acme", "catalog", hub.CheckRunWrite{Name: name, HeadSHA: head,
			Status: "completed", Conclusion: "failure"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.State("acme/catalog", head); ok {
		t.Fatal("a state before any render")
	}
	c.Wait("acme/catalog", head, 7)
	run, _ := api.CreateCheckRun(ctx, "acme", "catalog", hub.CheckRunWrite{Name: core.RenderCheckName, HeadSHA: head,
		Status: "in_progress"})
	if st, ok := c.State("ACME/catalog", head); !ok || st != RenderPending {
		t.Fatalf("running: %q %v", st, ok)
	}
	if ready := c.TakeReady("acme/catalog"); len(ready) != 0 {
		t.Fatalf("ready while rendering: %v", ready)
	}
	if _, err := api.UpdateCheckRun(ctx, "acme", "catalog", run.ID, hub.CheckRunWrite{Name: core.RenderCheckName,
		Status: "completed", Conclusion: "success"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State("acme/catalog", head); st != RenderPassed {
		t.Fatalf("after success: %q", st)
	}
	completedFailure("porchbot/approval")
	if st, _ := c.State("acme/catalog", head); st != RenderPassed {
		t.Fatalf("another check counted: %q", st)
	}
	if ready := c.TakeReady("acme/other"); len(ready) != 0 {
		t.Fatalf("another repository's waits: %v", ready)
	}
	if ready := c.TakeReady("acme/catalog"); len(ready) != 1 || ready[0] != 7 {
		t.Fatalf("ready after the render: %v", ready)
	}
	if ready := c.TakeReady("acme/catalog"); len(ready) != 0 {
		t.Fatalf("handed back twice: %v", ready)
	}
	completedFailure(core.RenderCheckName)
	if st, _ := c.State("acme/catalog", head); st != RenderFailed {
		t.Fatalf("one package failed: %q", st)
	}
	for n := range renderStatesMax + 10 {
		c.Wait("acme/catalog", strconv.Itoa(n), n)
	}
	if len(c.waiting) > renderStatesMax {
		t.Fatalf("%d waits kept", len(c.waiting))
	}
	var none *RenderStates
	if none.Checks("acme/catalog", api) != api || none.TakeReady("acme/catalog") != nil {
		t.Fatal("a nil RenderStates must remember nothing")
	}
}

// Per package the newest render run counts: an attempt interrupted (or
// failed) and then rendered again does not hold the head back, while one
// package's failure is not hidden by another package's later pass.
func TestRenderStatesNewestRunPerPackage(t *testing.T) {
	run := func(id int64, pkg, status, conclusion string) hub.CheckRun {
		return hub.CheckRun{ID: id, Name: core.RenderCheckName, HeadSHA: "abc",
			ExternalID: attemptExternalID(1, time.Unix(1, 0), pkg), Status: status, Conclusion: conclusion}
	}
	for _, tc := range []struct {
		name string
		runs []hub.CheckRun
		want RenderState
	}{
		{"interrupted then passed", []hub.CheckRun{run(1, "a", "completed", "cancelled"), run(2, "a", "completed", "success")}, RenderPassed},
		{"failed then passed", []hub.CheckRun{run(1, "a", "completed", "failure"), run(2, "a", "completed", "success")}, RenderPassed},
		{"one package failed, another passed later", []hub.CheckRun{run(1, "a", "completed", "failure"), run(2, "b", "completed", "success")}, RenderFailed},
		{"one package still rendering", []hub.CheckRun{run(1, "a", "completed", "success"), run(2, "b", "in_progress", "")}, RenderPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c RenderStates
			for _, r := range tc.runs {
				c.Observe("acme/catalog", r)
			}
			if got, ok := c.State("acme/catalog", "abc"); !ok || got != tc.want {
				t.Errorf("State = %v, %v; want %v", got, ok, tc.want)
			}
			runs := map[int64]RenderCheckState{}
			for _, r := range tc.runs {
				runs[r.ID] = RunOf(r)
			}
			if got := NewestPerPackage(runs); got != tc.want {
				t.Errorf("newestPerPackage = %v; want %v", got, tc.want)
			}
		})
	}
}
