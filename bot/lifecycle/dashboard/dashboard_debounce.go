package dashboard

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// Debounce defaults: a burst of events settles for Settle before
// the dashboard is refreshed once; refreshes of one repository are at
// least Interval apart.
const (
	Settle                  = 2 * time.Second
	dashboardRefreshTimeout = 2 * time.Minute
)

// Clock is the debouncer's clock (real time when nil): Now, and
// AfterFunc running f once d has passed, returning its stop function.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Debouncer refreshes each repository's dashboard at most once
// per Interval whatever the event rate: the first event of a burst
// schedules one refresh Settle later (or Interval after the previous one,
// whichever is later); every event until it runs is folded into it; an
// event during a refresh schedules one more after it. A refresh that was
// put off by GitHub's state (another replica edited less than Interval
// ago: Sync's RetryAt) is scheduled again then. Nothing is kept
// but a timer and two times per repository.
type Debouncer struct {
	// Refresh refreshes one repository's dashboard, returning when to
	// refresh again (zero: not needed).
	Refresh func(ctx context.Context, repo core.Repo) (retryAt time.Time, err error)
	// Interval (Interval) and Settle (Settle) when zero.
	Interval, Settle time.Duration
	Clock            Clock
	Log              logrus.FieldLogger

	mu      sync.Mutex
	entries map[string]*debounceEntry
	active  int           // entries pending or running
	idle    chan struct{} // closed when active drops to 0
	closed  bool
}

// debounceEntry is one repository's state.
type debounceEntry struct {
	repo    core.Repo
	stop    func() bool // the pending refresh's timer; nil when none
	running bool
	dirty   bool      // an event came during the refresh
	last    time.Time // when the last refresh started
}

func (d *Debouncer) clock() Clock {
	if d.Clock != nil {
		return d.Clock
	}
	return realClock{}
}

func (d *Debouncer) interval() time.Duration {
	if d.Interval > 0 {
		return d.Interval
	}
	return Interval
}

func (d *Debouncer) settle() time.Duration {
	if d.Settle > 0 {
		return d.Settle
	}
	return Settle
}

// Touch notes a change in repo: its dashboard is refreshed soon, once for
// the whole burst.
func (d *Debouncer) Touch(repo core.Repo) {
	if d == nil || repo.InstallationID == 0 {
		return
	}
	key := strings.ToLower(repo.FullName())
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	if d.entries == nil {
		d.entries = map[string]*debounceEntry{}
	}
	e := d.entries[key]
	if e == nil {
		e = &debounceEntry{}
		d.entries[key] = e
	}
	e.repo = repo
	switch {
	case e.running:
		e.dirty = true
	case e.stop == nil:
		d.activeLocked(+1)
		d.scheduleLocked(key, e, time.Time{})
	}
}

// scheduleLocked sets e's timer: Settle from now, Interval after the last
// refresh, or at, whichever is latest. The caller counts e active.
func (d *Debouncer) scheduleLocked(key string, e *debounceEntry, at time.Time) {
	now := d.clock().Now()
	due := now.Add(d.settle())
	if !e.last.IsZero() && e.last.Add(d.interval()).After(due) {
		due = e.last.Add(d.interval())
	}
	if at.After(due) {
		due = at
	}
	e.stop = d.clock().AfterFunc(due.Sub(now), func() { d.fire(key) })
}

// activeLocked counts entries pending or running.
func (d *Debouncer) activeLocked(delta int) {
	if d.active == 0 && delta > 0 {
		d.idle = make(chan struct{})
	}
	d.active += delta
	if d.active == 0 && d.idle != nil {
		close(d.idle)
	}
}

// fire runs one repository's refresh.
func (d *Debouncer) fire(key string) {
	d.mu.Lock()
	e := d.entries[key]
	if e == nil || e.stop == nil || e.running {
		d.mu.Unlock()
		return
	}
	e.stop, e.running, e.dirty, e.last = nil, true, false, d.clock().Now()
	repo := e.repo
	d.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), dashboardRefreshTimeout)
	retryAt, err := d.Refresh(ctx, repo)
	cancel()
	if err != nil && d.Log != nil {
		d.Log.WithError(err).WithField("repository", repo.FullName()).Warn("dashboard refresh failed")
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	e.running = false
	if !d.closed && (e.dirty || !retryAt.IsZero()) {
		e.dirty = false
		d.scheduleLocked(key, e, retryAt)
		return // still active
	}
	d.activeLocked(-1)
}

// Flush runs every pending refresh now, without waiting for its time, and
// waits until none is pending or running (tests; a shutdown that wants the
// dashboards current).
func (d *Debouncer) Flush(ctx context.Context) error {
	d.mu.Lock()
	var due []string
	for key, e := range d.entries {
		if e.stop != nil && e.stop() {
			due = append(due, key)
		}
	}
	d.mu.Unlock()
	for _, key := range due {
		go d.fire(key)
	}
	return d.Wait(ctx)
}

// Wait waits until no refresh is pending or running.
func (d *Debouncer) Wait(ctx context.Context) error {
	if d == nil {
		return nil
	}
	for {
		d.mu.Lock()
		if d.active == 0 {
			d.mu.Unlock()
			return nil
		}
		idle := d.idle
		d.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close stops every pending refresh; a running one finishes.
func (d *Debouncer) Close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for _, e := range d.entries {
		if e.stop != nil && e.stop() {
			e.stop = nil
			d.activeLocked(-1)
		}
	}
}
