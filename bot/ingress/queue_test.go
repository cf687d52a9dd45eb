package ingress

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// TestPerKeyOrdering sends, for many repositories at once, a numbered
// sequence of events each, and checks that every repository's events were
// handled one at a time and in order.
func TestPerKeyOrdering(t *testing.T) {
	const keys, perKey = 24, 40

	var (
		mu       sync.Mutex
		order    = map[string][]int{}
		running  = map[string]int{}
		overlaps []string
	)
	handler := HandlerFunc(func(_ context.Context, ev *Event) error {
		mu.Lock()
		running[ev.Repo]++
		if running[ev.Repo] > 1 {
			overlaps = append(overlaps, ev.Repo)
		}
		mu.Unlock()

		runtime.Gosched() // give other workers a chance to overlap
		payload, err := ev.Decode()
		if err != nil {
			return err
		}
		seq, err := strconv.Atoi(payload.(*github.PushEvent).GetAfter())
		if err != nil {
			return err
		}

		mu.Lock()
		order[ev.Repo] = append(order[ev.Repo], seq)
		running[ev.Repo]--
		mu.Unlock()
		return nil
	})
	ts := newTestServer(t, Options{Workers: 8, QueueSize: keys * perKey, Handlers: Handlers{"push": handler}}, true)

	var wg sync.WaitGroup
	for k := range keys {
		repo := fmt.Sprintf("org/repo-%d", k)
		wg.Go(func() {
			// One sender per repository, so that arrival order is known.
			for seq := range perKey {
				d := delivery{event: "push", id: fmt.Sprintf("%s-%d", repo, seq), body: pushPayload(repo, seq)}
				if a := d.do(t, ts.url); a.status != http.StatusAccepted {
					t.Errorf("%s: status %d: %s", d.id, a.status, a.message)
					return
				}
			}
		})
	}
	wg.Wait()
	shutdown(t, ts.Server)

	if len(overlaps) > 0 {
		t.Errorf("events of the same repository ran concurrently: %v", overlaps)
	}
	for k := range keys {
		repo := fmt.Sprintf("org/repo-%d", k)
		got := order[repo]
		if len(got) != perKey {
			t.Errorf("%s: %d events handled, want %d", repo, len(got), perKey)
			continue
		}
		for i, seq := range got {
			if seq != i {
				t.Errorf("%s: handled in order %v", repo, got)
				break
			}
		}
	}
}

// TestDistinctKeysRunInParallel blocks the handler of one repository until
// the handler of another has run: with keys serialised it would deadlock.
func TestDistinctKeysRunInParallel(t *testing.T) {
	bRan := make(chan struct{})
	handler := HandlerFunc(func(ctx context.Context, ev *Event) error {
		switch ev.Repo {
		case "org/a":
			select {
			case <-bRan:
				return nil
			case <-time.After(deadlockGuard):
				return errors.New("org/b never ran while org/a was running")
			}
		case "org/b":
			close(bRan)
		}
		return nil
	})
	ts := newTestServer(t, Options{Workers: 2, Handlers: Handlers{"push": handler}}, true)
	for i, repo := range []string{"org/a", "org/b"} {
		d := delivery{event: "push", id: repo, body: pushPayload(repo, i)}
		if a := d.do(t, ts.url); a.status != http.StatusAccepted {
			t.Fatalf("%s: status %d", repo, a.status)
		}
	}
	shutdown(t, ts.Server)
	if got := counter(t, ts.metrics, "push", outcomeProcessed); got != 2 {
		t.Errorf("processed = %v, want 2 (failed = %v)", got, counter(t, ts.metrics, "push", outcomeFailed))
	}
}

// blockingHandler announces each event it starts and waits for a token on
// release (or for release to be closed, which lets every event through).
type blockingHandler struct {
	started chan *Event
	release chan struct{}
}

func newBlockingHandler() *blockingHandler {
	return &blockingHandler{started: make(chan *Event, 1024), release: make(chan struct{})}
}

func (h *blockingHandler) Handle(ctx context.Context, ev *Event) error {
	h.started <- ev
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *blockingHandler) waitStarted(t *testing.T) *Event {
	t.Helper()
	select {
	case ev := <-h.started:
		return ev
	case <-time.After(deadlockGuard):
		t.Fatal("handler never started")
		return nil
	}
}

func TestQueueFull(t *testing.T) {
	h := newBlockingHandler()
	ts := newTestServer(t, Options{Workers: 1, QueueSize: 2, Handlers: Handlers{"push": h}}, true)
	send := func(id string, i int) answer {
		return delivery{event: "push", id: id, body: pushPayload("org/r", i)}.do(t, ts.url)
	}

	// Capacity counts events waiting and running: d1 runs, d2 waits.
	for i, id := range []string{"d1", "d2"} {
		if a := send(id, i); a.status != http.StatusAccepted {
			t.Fatalf("%s: status %d: %s", id, a.status, a.message)
		}
	}
	if ev := h.waitStarted(t); ev.DeliveryID != "d1" {
		t.Fatalf("first event handled is %s", ev.DeliveryID)
	}
	a := send("d3", 2)
	if a.status != http.StatusServiceUnavailable {
		t.Fatalf("d3 on a full queue: status %d, want 503", a.status)
	}
	if got := counter(t, ts.metrics, "push", outcomeQueueFull); got != 1 {
		t.Errorf("queue_full = %v, want 1", got)
	}
	if ts.deliveries.contains("d3") {
		t.Error("refused delivery d3 was remembered")
	}

	// Let d1 finish. The single worker starts d2 only after recording d1
	// done, so once d2 starts there is room for one event.
	h.release <- struct{}{}
	if ev := h.waitStarted(t); ev.DeliveryID != "d2" {
		t.Fatalf("second event handled is %s", ev.DeliveryID)
	}
	if a := send("d3", 2); a.status != http.StatusAccepted {
		t.Fatalf("redelivered d3: status %d (%s), want 202", a.status, a.message)
	}
	close(h.release)
	if ev := h.waitStarted(t); ev.DeliveryID != "d3" {
		t.Errorf("third event handled is %s, want d3", ev.DeliveryID)
	}
}

func TestHandlerPanicIsRecovered(t *testing.T) {
	rec := newRecorder(1)
	handler := HandlerFunc(func(ctx context.Context, ev *Event) error {
		switch ev.DeliveryID {
		case "panics":
			var m map[string]int
			m["boom"]++ // a real runtime panic
		case "fails":
			return errors.New("handler failure")
		}
		return rec.Handle(ctx, ev)
	})
	// One worker: if the panic killed it, "works" would never be handled.
	ts := newTestServer(t, Options{Workers: 1, Handlers: Handlers{"push": handler}}, true)
	for i, id := range []string{"panics", "fails", "works"} {
		if a := (delivery{event: "push", id: id, body: pushPayload("org/r", i)}).do(t, ts.url); a.status != http.StatusAccepted {
			t.Fatalf("%s: status %d", id, a.status)
		}
	}
	if ev := rec.wait(t); ev.DeliveryID != "works" {
		t.Errorf("handled %s, want works", ev.DeliveryID)
	}
	shutdown(t, ts.Server)
	for outcome, want := range map[string]float64{outcomePanicked: 1, outcomeFailed: 1, outcomeProcessed: 1} {
		if got := counter(t, ts.metrics, "push", outcome); got != want {
			t.Errorf("%s = %v, want %v", outcome, got, want)
		}
	}
}

func TestPanicErrorCarriesStack(t *testing.T) {
	s := &Server{handlers: Handlers{"push": HandlerFunc(func(context.Context, *Event) error { panic("boom") })}}
	outcome, err := s.invoke(context.Background(), &Event{Name: "push", Raw: pushPayload("org/r", 0)})
	pe, ok := errors.AsType[*panicError](err)
	if outcome != outcomePanicked || !ok {
		t.Fatalf("invoke = %q, %v; want panicked with a panicError", outcome, err)
	}
	if pe.Error() != "panic: boom" || len(pe.stack) == 0 {
		t.Errorf("panicError = %q with %d bytes of stack", pe.Error(), len(pe.stack))
	}
}

func TestShutdownDrains(t *testing.T) {
	const accepted = 20
	h := newBlockingHandler()
	ts := newTestServer(t, Options{Workers: 2, Handlers: Handlers{"push": h}}, true)
	for i := range accepted {
		repo := fmt.Sprintf("org/r%d", i%5)
		if a := (delivery{event: "push", id: strconv.Itoa(i), body: pushPayload(repo, i)}).do(t, ts.url); a.status != http.StatusAccepted {
			t.Fatalf("%d: status %d", i, a.status)
		}
	}
	h.waitStarted(t) // handlers are busy, most events still wait

	done := make(chan error, 1)
	go func() { done <- ts.Shutdown(context.Background()) }()
	<-ts.stopping

	late := delivery{event: "push", id: "late", body: pushPayload("org/r0", 99)}.do(t, ts.url)
	if late.status != http.StatusServiceUnavailable {
		t.Errorf("delivery during shutdown: status %d, want 503", late.status)
	}
	dup := delivery{event: "push", id: "0", body: pushPayload("org/r0", 0)}.do(t, ts.url)
	if dup.status != http.StatusOK {
		t.Errorf("duplicate of an accepted delivery during shutdown: status %d, want 200", dup.status)
	}
	if a := (delivery{method: http.MethodGet, path: ReadyzPath}).do(t, ts.url); a.status != http.StatusServiceUnavailable {
		t.Errorf("readyz during shutdown: %d, want 503", a.status)
	}

	close(h.release)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if got := counter(t, ts.metrics, "push", outcomeProcessed); got != accepted {
		t.Errorf("processed = %v, want all %d accepted", got, accepted)
	}
	if n := ts.queue.len(); n != 0 {
		t.Errorf("queue holds %d events after drain", n)
	}
	if depth := gaugeValue(t, ts.metrics.QueueDepth); depth != 0 {
		t.Errorf("queue depth gauge = %v after drain, want 0", depth)
	}
	if n := histogramCount(t, ts.metrics, "push"); n != accepted {
		t.Errorf("handler duration observed %d times, want %d", n, accepted)
	}
}

func TestShutdownDeadlineCancelsHandlers(t *testing.T) {
	h := newBlockingHandler() // never released: returns only on ctx.Done
	ts := newTestServer(t, Options{Workers: 1, Handlers: Handlers{"push": h}}, true)
	for i := range 3 {
		if a := (delivery{event: "push", id: strconv.Itoa(i), body: pushPayload("org/r", i)}).do(t, ts.url); a.status != http.StatusAccepted {
			t.Fatalf("%d: status %d", i, a.status)
		}
	}
	h.waitStarted(t)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has passed
	if err := ts.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown past its deadline = %v, want context.Canceled", err)
	}
	<-ts.workersDone // the running handler saw its context cancelled
	if got := counter(t, ts.metrics, "push", outcomeFailed); got != 1 {
		t.Errorf("failed = %v, want 1 (the running handler)", got)
	}
	if got := counter(t, ts.metrics, "push", outcomeDropped); got != 2 {
		t.Errorf("dropped = %v, want 2 (the waiting events)", got)
	}
}

func TestStartContextCancelBeginsStop(t *testing.T) {
	ts := newTestServer(t, Options{}, false)
	ctx, cancel := context.WithCancel(context.Background())
	ts.Start(ctx)
	cancel()
	<-ts.stopping
	<-ts.workersDone
	if a := (delivery{event: "push", id: "d", body: pushPayload("org/r", 0)}).do(t, ts.url); a.status != http.StatusServiceUnavailable {
		t.Errorf("delivery after Start's context ended: %d, want 503", a.status)
	}
}

func TestKeyedQueueUnit(t *testing.T) {
	q := newKeyedQueue(3, newTestGauge())
	evs := make([]*Event, 4)
	for i := range evs {
		evs[i] = &Event{DeliveryID: strconv.Itoa(i)}
	}
	for i, key := range []string{"a", "a", "b"} {
		if err := q.push(key, evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.push("c", evs[3]); !errors.Is(err, errQueueFull) {
		t.Fatalf("push on a full queue = %v", err)
	}
	la, e0, _ := q.next() // a's first
	lb, e2, _ := q.next() // a is busy, so b's
	if e0 != evs[0] || e2 != evs[2] {
		t.Fatalf("next gave %s then %s, want 0 then 2", e0.DeliveryID, e2.DeliveryID)
	}
	q.done(lb)
	q.done(la) // a's second becomes ready
	q.close()
	if err := q.push("c", evs[3]); !errors.Is(err, errQueueClosed) {
		t.Fatalf("push on a closed queue = %v", err)
	}
	l, e1, ok := q.next()
	if !ok || e1 != evs[1] {
		t.Fatalf("next after close = %v, %v; want event 1", e1, ok)
	}
	q.done(l)
	if _, _, ok := q.next(); ok {
		t.Fatal("next on a closed, drained queue returned an event")
	}
	if q.len() != 0 || len(q.lanes) != 0 {
		t.Errorf("drained queue holds %d events, %d lanes", q.len(), len(q.lanes))
	}
}
