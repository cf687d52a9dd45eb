package dashboard

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// fakeClock runs timers when the test advances it, synchronously.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
	fired   bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped && !t.fired
		t.stopped = true
		return was
	}
}

// advance moves the clock by d, firing each due timer in time order.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.stopped && !t.fired && !t.at.After(end) {
				next = t
				break
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.fired = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
}

// TestDashboardDebounce: a burst of events makes one refresh; refreshes of
// a repository are at least the interval apart; an event during a refresh
// makes one more after it; GitHub's "edited too recently" puts one off to
// its time; repositories do not wait for each other.
func TestDashboardDebounce(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	start := clock.now
	var (
		mu       sync.Mutex
		runs     []string // "repo@seconds since start"
		during   func()   // called inside the next refresh
		retryAts = map[string]time.Time{}
	)
	d := &Debouncer{Clock: clock, Refresh: func(_ context.Context, r core.Repo) (time.Time, error) {
		mu.Lock()
		runs = append(runs, r.Name+"@"+clock.Now().Sub(start).String())
		f, retry := during, retryAts[r.Name]
		during = nil
		delete(retryAts, r.Name)
		mu.Unlock()
		if f != nil {
			f()
		}
		return retry, nil
	}}
	a := core.Repo{Owner: "acme", Name: "a", InstallationID: 1}
	b := core.Repo{Owner: "acme", Name: "b", InstallationID: 1}
	took := func(want ...string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if len(runs) != len(want) {
			t.Fatalf("refreshes %v, want %v", runs, want)
		}
		for i := range want {
			if runs[i] != want[i] {
				t.Fatalf("refreshes %v, want %v", runs, want)
			}
		}
		runs = nil
	}

	// A burst of 1,000 events over a second: one refresh, Settle after the first.
	for i := range 1000 {
		d.Touch(a)
		clock.advance(time.Millisecond)
		_ = i
	}
	clock.advance(5 * time.Second)
	took("a@2s")

	// Events keep coming every second for a minute: one refresh per interval.
	for range 60 {
		d.Touch(a)
		clock.advance(time.Second)
	}
	clock.advance(time.Minute)
	mu.Lock()
	n := len(runs)
	for i := 1; i < n; i++ {
		var p, q time.Duration
		p, _ = time.ParseDuration(runs[i-1][2:])
		q, _ = time.ParseDuration(runs[i][2:])
		if q-p < Interval {
			t.Errorf("refreshes %s and %s are less than %s apart", runs[i-1], runs[i], Interval)
		}
	}
	if n < 5 || n > 7 {
		t.Errorf("%d refreshes for a minute of events every second: %v", n, runs)
	}
	runs = nil
	mu.Unlock()

	// An event during a refresh makes exactly one more, an interval later.
	clock.advance(time.Minute)
	base := clock.Now().Sub(start)
	mu.Lock()
	during = func() { d.Touch(a); d.Touch(a) }
	mu.Unlock()
	d.Touch(a)
	clock.advance(time.Minute)
	took("a@"+(base+2*time.Second).String(), "a@"+(base+2*time.Second+Interval).String())

	// Another replica edited recently: the refresh is put off to retryAt.
	base = clock.Now().Sub(start)
	mu.Lock()
	retryAts["a"] = clock.Now().Add(30 * time.Second)
	mu.Unlock()
	d.Touch(a)
	clock.advance(time.Minute)
	took("a@"+(base+2*time.Second).String(), "a@"+(base+30*time.Second).String())

	// Two repositories: each its own refresh, neither waits for the other.
	base = clock.Now().Sub(start)
	d.Touch(a)
	d.Touch(b)
	clock.advance(time.Minute)
	mu.Lock()
	sort.Strings(runs)
	mu.Unlock()
	took("a@"+(base+2*time.Second).String(), "b@"+(base+2*time.Second).String())

	// Nothing is pending now; Wait returns at once.
	if err := d.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Flush runs a pending refresh now; Close drops pending ones.
	d.Touch(a)
	if err := d.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	took("a@" + clock.Now().Sub(start).String())
	d.Touch(b)
	d.Close()
	clock.advance(time.Minute)
	d.Touch(b)
	clock.advance(time.Minute)
	took()
	if err := d.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestDecideDashboard(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	open := func(body string, age time.Duration) *dashboardIssue {
		return &dashboardIssue{Number: 3, Open: true, Body: body, UpdatedAt: now.Add(-age)}
	}
	closedBy := func(bot bool) *dashboardIssue {
		return &dashboardIssue{Number: 3, ClosedByBot: bot, ClosedAt: now.Add(-time.Hour)}
	}
	yes, no := func() bool { return true }, func() bool { return false }
	for _, tc := range []struct {
		name            string
		enabled, create bool
		d               *dashboardIssue
		configChanged   func() bool
		want            dashboardStep
	}{
		{"missing, install", true, true, nil, no, stepCreate},
		{"missing, an event", true, false, nil, no, stepNone},
		{"disabled, missing", false, true, nil, no, stepNone},
		{"disabled, open: closed", false, false, open("old", time.Hour), no, stepClose},
		{"disabled, closed", false, true, closedBy(false), yes, stepNone},
		{"same body", true, false, open("new", time.Hour), no, stepNone},
		{"changed body", true, false, open("old", time.Hour), no, stepEdit},
		{"changed body, edited 3 s ago", true, false, open("old", 3*time.Second), no, stepWait},
		{"closed by a person", true, true, closedBy(false), no, stepStayClosed},
		{"closed by a person, config changed since", true, true, closedBy(false), yes, stepReopen},
		{"closed by porchbot (disabled before)", true, false, closedBy(true), no, stepReopen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideDashboard(tc.enabled, tc.create, tc.d, tc.configChanged, "new", now, Interval); got != tc.want {
				t.Fatalf("decideDashboard = %d, want %d", got, tc.want)
			}
		})
	}
}
