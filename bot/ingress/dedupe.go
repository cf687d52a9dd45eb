package ingress

import (
	"errors"
	"sync"
)

// errDuplicate reports a delivery id that was already accepted.
var errDuplicate = errors.New("duplicate delivery")

// deliveryLog remembers the ids of the last accepted deliveries so that a
// redelivery is not processed twice. Memory is bounded: it holds at most
// size ids, in a ring, and forgets the oldest first.
type deliveryLog struct {
	mu    sync.Mutex
	ring  []string
	next  int // slot the next id goes to
	count int // slots in use
	seen  map[string]struct{}
}

func newDeliveryLog(size int) *deliveryLog {
	return &deliveryLog{
		ring: make([]string, size),
		seen: make(map[string]struct{}, size),
	}
}

// admit calls accept for a delivery id not seen yet and remembers the id
// only if accept succeeds, so that a refused delivery can be redelivered.
// It returns errDuplicate, without calling accept, for an id already
// remembered. The check, accept and remember are atomic: of two concurrent
// deliveries with the same id, one is accepted and the other is a duplicate.
func (d *deliveryLog) admit(id string, accept func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.seen[id]; ok {
		return errDuplicate
	}
	if err := accept(); err != nil {
		return err
	}
	if d.count == len(d.ring) {
		delete(d.seen, d.ring[d.next])
	} else {
		d.count++
	}
	d.ring[d.next] = id
	d.seen[id] = struct{}{}
	d.next = (d.next + 1) % len(d.ring)
	return nil
}

// contains reports whether id is remembered.
func (d *deliveryLog) contains(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.seen[id]
	return ok
}

// len reports how many ids are remembered.
func (d *deliveryLog) len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.seen)
}
