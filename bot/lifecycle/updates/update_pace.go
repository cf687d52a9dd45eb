package updates

import (
	"context"
	"sync"
	"time"
)

// GitHub's secondary limits allow 80 content-creating requests a minute
// and 500 an hour. porchbot's API transport keeps mutating calls at least
// --mutation-spacing apart (75 a minute at the default 800 ms), which keeps
// the first; Budget keeps the second across a fan-out: before each
// downstream update, the fan-out reserves the content-creating calls an
// update makes and waits, when the last hour's reservations would exceed
// the budget, until enough of them are an hour old.

// UpdateContentCalls is what one update reserves: the pull request and the
// labels, its content-creating API requests (the branch push is git, not an
// API request; its requester record is in the body; reviewers, a refresh's
// edit or a comment come out of the 100 left beside the budget).
const UpdateContentCalls = 2

// DefaultBudget is the update fan-outs' share of GitHub's 500
// content-creating requests an hour; the rest is left to the other steps.
const DefaultBudget = 400

// Pacer paces the fan-out (Budget).
type Pacer interface {
	Wait(ctx context.Context, n int) error
}

// Budget is a sliding one-hour window of Limit content-creating
// calls, shared by every fan-out of the process. Now and Sleep default to
// the wall clock.
type Budget struct {
	Limit int
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex
	used []time.Time // one entry per call reserved, oldest first
}

// updateWindow is the span of GitHub's hourly limit.
const updateWindow = time.Hour

// Wait reserves n calls, waiting until the last hour holds room for them.
// n above Limit reserves Limit.
func (b *Budget) Wait(ctx context.Context, n int) error {
	if b == nil || b.Limit <= 0 || n <= 0 {
		return nil
	}
	n = min(n, b.Limit)
	for {
		b.mu.Lock()
		now := b.now()
		for len(b.used) > 0 && !b.used[0].Add(updateWindow).After(now) {
			b.used = b.used[1:]
		}
		if len(b.used)+n <= b.Limit {
			for i := 0; i < n; i++ {
				b.used = append(b.used, now)
			}
			b.mu.Unlock()
			return nil
		}
		// Room comes when the oldest entries that must go leave the window.
		wait := b.used[len(b.used)+n-b.Limit-1].Add(updateWindow).Sub(now)
		b.mu.Unlock()
		if err := b.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func (b *Budget) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Budget) sleep(ctx context.Context, d time.Duration) error {
	if b.Sleep != nil {
		return b.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
