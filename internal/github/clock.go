package github

import (
	"context"
	"time"
)

// Clock is the transport's view of time: when it is, and how to wait. Tests
// substitute a fake that records requested sleeps and returns at once.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() as soon as ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done, whichever comes first.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
