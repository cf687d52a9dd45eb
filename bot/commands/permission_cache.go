package commands

import (
	"context"
	"strings"
	"sync"
	"time"
)

// DefaultPermissionTTL is how long a commenter's permission answer is
// reused.
const DefaultPermissionTTL = time.Minute

// permissionCacheMax bounds the answers kept (the oldest are dropped).
const permissionCacheMax = 4096

// PermissionCache remembers definite answers of the permission endpoint
// (a user's level and role on a repository) for a short time across
// comments in one process, so someone running several commands costs one
// lookup a minute, not one per comment. A change of permission is seen at
// most TTL later; failed lookups are never kept. The zero value is ready
// (DefaultPermissionTTL); nil looks every time.
type PermissionCache struct {
	TTL time.Duration
	Now func() time.Time

	mu    sync.Mutex
	m     map[string]permissionEntry
	order []string
}

type permissionEntry struct {
	level, role string
	expires     time.Time
}

func (c *PermissionCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func permissionKey(owner, repo, login string) string {
	return strings.ToLower(owner + "/" + repo + "\x00" + login)
}

// lookup answers from the cache, else from the endpoint (keeping the
// answer).
func (c *PermissionCache) lookup(ctx context.Context, repos reposAPI, owner, repo, login string) (string, string, error) {
	if c == nil {
		return permission(ctx, repos, owner, repo, login)
	}
	key := permissionKey(owner, repo, login)
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && c.now().Before(e.expires) {
		return e.level, e.role, nil
	}
	level, role, err := permission(ctx, repos, owner, repo, login)
	if err != nil {
		return "", "", err
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultPermissionTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]permissionEntry{}
	}
	if _, had := c.m[key]; !had {
		c.order = append(c.order, key)
		for len(c.order) > permissionCacheMax {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.m[key] = permissionEntry{level: level, role: role, expires: c.now().Add(ttl)}
	return level, role, nil
}
