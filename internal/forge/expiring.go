package forge

import (
	"sync"
	"time"
)

// expiring holds values under random keys for a while, at most max at
// once: the App's OAuth codes waiting for their exchange (web_oauth.go)
// and the browsers signed in to the web pages (web_session.go).
type expiring[V any] struct {
	mu sync.Mutex
	m  map[string]expiringItem[V]
}

type expiringItem[V any] struct {
	v       V
	expires time.Time
}

// add keeps v under a new key of keyBytes random bytes until now+ttl;
// false when max are already kept (expired ones are dropped first).
func (e *expiring[V]) add(now time.Time, v V, ttl time.Duration, max, keyBytes int) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[string]expiringItem[V]{}
	}
	for k, it := range e.m {
		if !now.Before(it.expires) {
			delete(e.m, k)
		}
	}
	if len(e.m) >= max {
		return "", false
	}
	key := randomHex(keyBytes)
	e.m[key] = expiringItem[V]{v: v, expires: now.Add(ttl)}
	return key, true
}

// get is the live value of key.
func (e *expiring[V]) get(now time.Time, key string) (V, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	it, ok := e.m[key]
	if !ok || !now.Before(it.expires) {
		var zero V
		return zero, false
	}
	return it.v, true
}

// take removes key and answers its live value: a key is used once.
func (e *expiring[V]) take(now time.Time, key string) (V, bool) {
	e.mu.Lock()
	it, ok := e.m[key]
	delete(e.m, key)
	e.mu.Unlock()
	if !ok || !now.Before(it.expires) {
		var zero V
		return zero, false
	}
	return it.v, true
}
