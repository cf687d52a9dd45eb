package approval

import (
	"testing"
	"time"
)

func TestMembershipCacheExpires(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := &MembershipCache{TTL: time.Minute, Now: func() time.Time { return now }}
	c.put("acme/platform\x00bob", approverAnswer{allowed: true})
	if a, ok := c.get("acme/platform\x00bob"); !ok || !a.allowed {
		t.Fatalf("fresh answer not reused: %v %v", a, ok)
	}
	now = now.Add(time.Minute)
	if _, ok := c.get("acme/platform\x00bob"); ok {
		t.Fatal("an answer outlived its TTL")
	}
	var nilCache *MembershipCache
	nilCache.put("k", approverAnswer{})
	if _, ok := nilCache.get("k"); ok {
		t.Fatal("a nil cache remembers")
	}
}
