package github

import (
	"context"
	"time"
)

// spacer keeps mutating requests at least gap apart, as GitHub's
// best-practices guide asks ("wait at least one second between each
// request" that creates content). It is shared by every client built on one
// Transport, so it spaces calls across installations too, which is stricter
// than GitHub requires.
type spacer struct {
	gap   time.Duration
	clock Clock
	turn  chan struct{} // one-slot semaphore; guards last
	last  time.Time
}

func newSpacer(gap time.Duration, clock Clock) *spacer {
	return &spacer{gap: gap, clock: clock, turn: make(chan struct{}, 1)}
}

// wait blocks until gap has passed since the previous mutating request was
// let through, then records this one. Waiters are served one at a time.
func (s *spacer) wait(ctx context.Context) error {
	if s.gap <= 0 {
		return nil
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()
	if !s.last.IsZero() {
		if d := s.last.Add(s.gap).Sub(s.clock.Now()); d > 0 {
			if err := s.clock.Sleep(ctx, d); err != nil {
				return err
			}
		}
	}
	s.last = s.clock.Now()
	return nil
}
