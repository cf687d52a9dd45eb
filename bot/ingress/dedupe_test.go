package ingress

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func accept() error { return nil }

func TestDeliveryLogIsBounded(t *testing.T) {
	const size, extra = 100, 37
	d := newDeliveryLog(size)
	for i := range size + extra {
		if err := d.admit(fmt.Sprint(i), accept); err != nil {
			t.Fatalf("admit %d: %v", i, err)
		}
	}
	if n := d.len(); n != size {
		t.Errorf("remembers %d ids, want %d", n, size)
	}
	for i := range size + extra {
		if got, want := d.contains(fmt.Sprint(i)), i >= extra; got != want {
			t.Errorf("contains(%d) = %v, want %v", i, got, want)
		}
	}
	// A forgotten id is accepted again, a remembered one is a duplicate.
	if err := d.admit("0", accept); err != nil {
		t.Errorf("forgotten id: %v", err)
	}
	if err := d.admit(fmt.Sprint(size+extra-1), accept); !errors.Is(err, errDuplicate) {
		t.Errorf("remembered id: %v, want errDuplicate", err)
	}
}

func TestDeliveryLogRemembersOnlyAccepted(t *testing.T) {
	d := newDeliveryLog(4)
	refused := errors.New("refused")
	if err := d.admit("a", func() error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("admit = %v", err)
	}
	if d.contains("a") {
		t.Fatal("a refused delivery was remembered")
	}
	calls := 0
	for range 2 {
		_ = d.admit("a", func() error { calls++; return nil })
	}
	if calls != 1 {
		t.Errorf("accept called %d times for a delivery and its duplicate, want 1", calls)
	}
}

func TestDedupeOverHTTPIsBounded(t *testing.T) {
	rec := newRecorder(8)
	ts := newTestServer(t, Options{DedupeSize: 2, Handlers: Handlers{"push": rec}}, true)
	send := func(id string) int {
		return delivery{event: "push", id: id, body: pushPayload("org/r", 0)}.do(t, ts.url).status
	}
	for _, id := range []string{"d1", "d2", "d3"} {
		if s := send(id); s != http.StatusAccepted {
			t.Fatalf("%s: %d", id, s)
		}
	}
	if s := send("d3"); s != http.StatusOK {
		t.Errorf("d3 again: %d, want 200 duplicate", s)
	}
	if s := send("d1"); s != http.StatusAccepted {
		t.Errorf("d1 again, forgotten after DedupeSize newer deliveries: %d, want 202", s)
	}
	shutdown(t, ts.Server)
	if n := len(rec.recorded()); n != 4 {
		t.Errorf("handled %d events, want 4 (d1 twice)", n)
	}
}
