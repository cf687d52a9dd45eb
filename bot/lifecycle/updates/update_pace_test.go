package updates

import (
	"context"
	"testing"
	"time"
)

// TestUpdateBudget: within the hour the budget lets Limit calls through at
// once; the next reservation waits exactly until enough of the first are
// an hour old, and a reservation larger than the room waits for as many.
func TestUpdateBudget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	var slept []time.Duration
	b := &Budget{Limit: 8, Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); now = now.Add(d); return nil }}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := b.Wait(ctx, 4); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * time.Minute)
	}
	if len(slept) != 0 {
		t.Fatalf("waited %v within the budget", slept)
	}
	// 8 used at t0 (4) and t0+10m (4); now t0+20m: the next 4 wait for t0+1h.
	if err := b.Wait(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 40*time.Minute || !now.Equal(t0.Add(time.Hour)) {
		t.Fatalf("slept %v, now %v; want 40m, until %v", slept, now, t0.Add(time.Hour))
	}
	// 4 at t0+10m, 4 at t0+1h: 6 more wait for both older groups... up to
	// the limit: n above the limit reserves the limit.
	if err := b.Wait(ctx, 20); err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(2 * time.Hour); !now.Equal(want) {
		t.Fatalf("a reservation of the whole budget ended at %v, want %v", now, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	b.Sleep = nil
	if err := b.Wait(cancelled, 1); err == nil {
		t.Fatal("a full budget with a cancelled context did not fail")
	}
}
