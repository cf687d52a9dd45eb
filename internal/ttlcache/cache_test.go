package ttlcache

import (
	"testing"
	"time"
)

func TestExpiryBoundAndClear(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Cache[string]{Max: 2}
	c.Put("a", "A", t0.Add(time.Minute))
	c.Put("b", "B", time.Time{})
	if v, ok := c.Get("a", t0); !ok || v != "A" {
		t.Fatalf("a before expiry: %q %v", v, ok)
	}
	if _, ok := c.Get("a", t0.Add(time.Minute)); ok {
		t.Fatal("a kept at its expiry")
	}
	if v, ok := c.Get("b", t0.Add(24*time.Hour)); !ok || v != "B" {
		t.Fatalf("b (no expiry) a day later: %q %v", v, ok)
	}
	c.Put("a", "A2", time.Time{}) // an update keeps a's place: nothing forgotten
	if _, ok := c.Get("b", t0); !ok {
		t.Fatal("b forgotten by an update of a")
	}
	c.Put("c", "C", time.Time{}) // past Max: the oldest key (a) goes
	if _, ok := c.Get("a", t0); ok {
		t.Fatal("the oldest key kept past Max")
	}
	if _, ok := c.Get("c", t0); !ok {
		t.Fatal("the newest key not kept")
	}
	c.Clear()
	if _, ok := c.Get("c", t0); ok {
		t.Fatal("c kept after Clear")
	}
}
