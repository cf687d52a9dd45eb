package approval

import (
	"time"

	"github.com/porchbot/porchbot/internal/ttlcache"
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

	m ttlcache.Cache[approverAnswer]
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
	return c.m.Get(key, c.now())
}

func (c *MembershipCache) put(key string, a approverAnswer) {
	if c == nil {
		return
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultMembershipTTL
	}
	c.m.Put(key, a, c.now().Add(ttl))
}
