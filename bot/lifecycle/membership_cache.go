package lifecycle

import (
	"sync"
	"time"
)

// DefaultMembershipTTL is how long a team membership answer is reused.
const DefaultMembershipTTL = time.Minute

// MembershipCache remembers definite team membership answers (active, or
// not a member) for a short time across approval evaluations in one
// process, so a busy proposal does not cost a lookup per review. A change
// of membership is seen at most TTL later; refusals to look are never kept.
// The zero value is ready to use (DefaultMembershipTTL).
type MembershipCache struct {
	TTL time.Duration
	Now func() time.Time

	mu sync.Mutex
	m  map[string]membershipEntry
}

type membershipEntry struct {
	answer  approverAnswer
	expires time.Time
}

func (c *MembershipCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *MembershipCache) get(key string) (approverAnswer, bool) {
	if c == nil {
		return approverAnswer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !c.now().Before(e.expires) {
		delete(c.m, key)
		return approverAnswer{}, false
	}
	return e.answer, true
}

func (c *MembershipCache) put(key string, a approverAnswer) {
	if c == nil {
		return
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultMembershipTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]membershipEntry{}
	}
	c.m[key] = membershipEntry{answer: a, expires: c.now().Add(ttl)}
}
