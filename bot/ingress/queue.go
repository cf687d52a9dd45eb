package ingress

import (
	"context"
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	errQueueFull   = errors.New("queue full")
	errQueueClosed = errors.New("queue closed")
)

// keyedQueue is a bounded queue of events that hands them to workers so that
// events with the same key are handled one at a time, in the order they were
// pushed, while events with different keys are handled in parallel.
//
// Each key has a lane, a FIFO of its waiting events. A lane with waiting
// events and no event being handled is "ready"; ready lanes are served
// round-robin, so one busy key cannot starve the others.
type keyedQueue struct {
	mu       sync.Mutex
	wake     sync.Cond // signalled when a lane becomes ready or the queue closes
	idle     sync.Cond // broadcast when depth falls to zero
	capacity int
	depth    int // events waiting or being handled
	waiting  int // events not yet handed to a worker
	lanes    map[string]*lane
	ready    fifo[*lane]
	closed   bool
	gauge    prometheus.Gauge // mirrors depth
}

// lane holds the waiting events of one key.
type lane struct {
	key    string
	events fifo[*Event]
	busy   bool // a worker is handling one of its events
}

func newKeyedQueue(capacity int, gauge prometheus.Gauge) *keyedQueue {
	q := &keyedQueue{
		capacity: capacity,
		lanes:    make(map[string]*lane),
		gauge:    gauge,
	}
	q.wake.L = &q.mu
	q.idle.L = &q.mu
	return q
}

// push appends ev to the lane of key. It fails with errQueueFull when
// capacity events are already waiting or being handled, and with
// errQueueClosed once close was called.
func (q *keyedQueue) push(key string, ev *Event) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return errQueueClosed
	}
	if q.depth >= q.capacity {
		return errQueueFull
	}
	l := q.lanes[key]
	if l == nil {
		l = &lane{key: key}
		q.lanes[key] = l
	}
	l.events.push(ev)
	q.depth++
	q.waiting++
	q.gauge.Set(float64(q.depth))
	if !l.busy && l.events.len() == 1 {
		q.ready.push(l)
		q.wake.Signal()
	}
	return nil
}

// next blocks until an event can be handled and returns it with its lane,
// which the caller must pass to done once the event is handled. It returns
// false when the queue is closed and no event is waiting.
func (q *keyedQueue) next() (*lane, *Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready.len() == 0 {
		if q.closed && q.waiting == 0 {
			return nil, nil, false
		}
		q.wake.Wait()
	}
	l, _ := q.ready.pop()
	ev, _ := l.events.pop()
	l.busy = true
	q.waiting--
	if q.closed && q.waiting == 0 {
		q.wake.Broadcast() // let idle workers see that the queue is drained
	}
	return l, ev, true
}

// done records that the event next returned with l was handled.
func (q *keyedQueue) done(l *lane) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l.busy = false
	q.depth--
	q.gauge.Set(float64(q.depth))
	if q.depth == 0 {
		q.idle.Broadcast()
	}
	if l.events.len() > 0 {
		q.ready.push(l)
		q.wake.Signal()
		return
	}
	delete(q.lanes, l.key)
}

// close stops accepting events. Events already pushed are still handed out;
// next returns false once they all are.
func (q *keyedQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.wake.Broadcast()
}

// len reports the events waiting or being handled.
func (q *keyedQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.depth
}

// waitIdle blocks until no event is waiting or being handled, or ctx ends.
func (q *keyedQueue) waitIdle(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.idle.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.depth > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		q.idle.Wait()
	}
	return nil
}
