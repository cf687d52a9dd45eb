package e2e

import (
	"sync"
	"time"
)

// worldClock is the forge's clock in a world: real time plus an offset
// that only grows, or, inside sameSecond, one frozen second. GitHub dates
// comments and pushes to the second; the world moves its clock to put an
// action in a second of its own, or two actions in one, without waiting.
type worldClock struct {
	mu     sync.Mutex
	on     bool
	offset time.Duration
	frozen time.Time
}

// now is the forge's time.
func (c *worldClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen.IsZero() {
		return c.frozen
	}
	return time.Now().Add(c.offset)
}

// nextSecondLocked moves the offset to the start of the next whole second:
// what the forge dates next is later, to the second, than all before.
func (c *worldClock) nextSecondLocked() time.Time {
	cur := time.Now().Add(c.offset)
	next := cur.Truncate(time.Second).Add(time.Second)
	c.offset += next.Sub(cur)
	return next
}

// install makes c the forge's clock (once).
func (w *world) installClock() {
	w.clock.mu.Lock()
	defer w.clock.mu.Unlock()
	if !w.clock.on {
		w.clock.on = true
		w.svc.Embedded.Forge.SetClock(w.clock.now)
	}
}

// laterSecond makes the forge date what comes next in a later second than
// everything before.
func (w *world) laterSecond() {
	w.installClock()
	w.clock.mu.Lock()
	defer w.clock.mu.Unlock()
	w.clock.nextSecondLocked()
}

// sameSecond runs fn with the forge's clock stopped in a second of its
// own: everything fn makes is dated alike; what follows is later.
func (w *world) sameSecond(fn func()) {
	w.installClock()
	w.clock.mu.Lock()
	w.clock.frozen = w.clock.nextSecondLocked()
	w.clock.mu.Unlock()
	defer func() {
		w.clock.mu.Lock()
		defer w.clock.mu.Unlock()
		w.clock.frozen = time.Time{}
		w.clock.offset += time.Second // past the frozen second
		w.clock.nextSecondLocked()
	}()
	fn()
}
