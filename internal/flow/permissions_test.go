package flow

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/hub"
)

// countingRepos answers the permission endpoint with level, counting calls;
// fail makes the next call fail.
type countingRepos struct {
	level string
	calls int
	fail  bool
}

func (r *countingRepos) Permission(_ context.Context, _, _, user string) (hub.Permission, error) {
	r.calls++
	if r.fail {
		r.fail = false
		return hub.Permission{}, errors.New("boom")
	}
	return hub.Permission{Level: r.level}, nil
}

// TestPermissionCacheReusesAnswersForTheTTL: one lookup per user and
// repository per TTL; a change is seen after it; failures are not kept.
func TestPermissionCacheReusesAnswersForTheTTL(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := &PermissionCache{Now: func() time.Time { return now }}
	repos := &countingRepos{level: "write"}
	ctx := context.Background()
	ask := func(login string) string {
		t.Helper()
		level, _, err := c.Lookup(ctx, repos, "Acme", "Catalog", login)
		if err != nil {
			t.Fatal(err)
		}
		return level
	}
	if ask("alice") != "write" || ask("Alice") != "write" || repos.calls != 1 {
		t.Fatalf("two answers within the TTL cost %d lookups", repos.calls)
	}
	if ask("bob"); repos.calls != 2 {
		t.Fatalf("another user was answered from alice's entry (%d lookups)", repos.calls)
	}
	repos.level = "read" // alice's write access revoked
	now = now.Add(DefaultPermissionTTL - time.Second)
	if ask("alice") != "write" || repos.calls != 2 {
		t.Fatalf("within the TTL: %d lookups", repos.calls)
	}
	now = now.Add(2 * time.Second)
	if got := ask("alice"); got != "read" || repos.calls != 3 {
		t.Fatalf("after the TTL: %s, %d lookups", got, repos.calls)
	}
	repos.fail = true
	now = now.Add(DefaultPermissionTTL + time.Second)
	if _, _, err := c.Lookup(ctx, repos, "acme", "catalog", "alice"); err == nil {
		t.Fatal("a failed lookup answered")
	}
	if ask("alice") != "read" || repos.calls != 5 {
		t.Fatalf("a failed lookup was kept: %d lookups", repos.calls)
	}
	var none *PermissionCache
	if level, _, err := none.Lookup(ctx, repos, "acme", "catalog", "carol"); err != nil || level != "read" || repos.calls != 6 {
		t.Fatalf("nil cache: %s %v, %d lookups", level, err, repos.calls)
	}
}
