// Package ttlcache is the one in-process cache of answers porchbot reuses
// for a while (team memberships, permissions, repository visibility,
// commit authors): a bounded map whose entries expire at a given time.
package ttlcache

import (
	"sync"
	"time"
)

// DefaultMax bounds a Cache whose Max is not set.
const DefaultMax = 4096

// Cache keeps values by key until their expiry, at most Max of them (the
// oldest key is forgotten first). The zero value is ready; it is safe for
// concurrent use.
type Cache[V any] struct {
	// Max is the most entries kept (DefaultMax when 0).
	Max int

	mu    sync.Mutex
	m     map[string]entry[V]
	order []string
}

type entry[V any] struct {
	v       V
	expires time.Time // zero: never
}

// Get is the value kept for key while now is before its expiry.
func (c *Cache[V]) Get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !e.expires.IsZero() && !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put keeps v for key until expires (zero: until room is needed).
func (c *Cache[V]) Put(key string, v V, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]entry[V]{}
	}
	if _, had := c.m[key]; !had {
		c.order = append(c.order, key)
		max := c.Max
		if max <= 0 {
			max = DefaultMax
		}
		for len(c.order) > max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.m[key] = entry[V]{v: v, expires: expires}
}

// Clear forgets every key.
func (c *Cache[V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.order = nil, nil
}
