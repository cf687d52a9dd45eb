package flow

import (
	"context"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/hub"

	"github.com/porchbot/porchbot/internal/ttlcache"
)

// DefaultPermissionTTL is how long a permission answer is reused.
const DefaultPermissionTTL = time.Minute

// Permission levels as the collaborator-permission endpoint names them
// (maintain is folded into write, triage into read).
const (
	LevelAdmin = "admin"
	LevelWrite = "write"
	LevelRead  = "read"
	LevelNone  = "none"
)

// CanWrite reports whether level allows pushing.
func CanWrite(level string) bool { return level == LevelAdmin || level == LevelWrite }

// CanRead reports whether level allows reading.
func CanRead(level string) bool { return CanWrite(level) || level == LevelRead }

// PermissionAPI is the collaborator-permission endpoint (a part of
// hub.API).
type PermissionAPI interface {
	Permission(ctx context.Context, owner, repo, user string) (hub.Permission, error)
}

// LookupPermission asks the endpoint for a user's permission on a
// repository: the level, and the precise role for messages. A user GitHub
// does not know (404) has none.
func LookupPermission(ctx context.Context, api PermissionAPI, owner, repo, login string) (level, role string, err error) {
	p, err := api.Permission(ctx, owner, repo, login)
	if err != nil {
		if hub.IsNotFound(err) {
			return LevelNone, LevelNone, nil
		}
		return "", "", err
	}
	level = strings.ToLower(p.Level)
	role = p.Role
	if role == "" {
		role = level
	}
	return level, role, nil
}

// PermissionCache remembers definite answers of the permission endpoint
// (a user's level and role on a repository) for a short time in one
// process: someone running several commands, or a fan-out asking about
// the same person and repository again, costs one lookup a minute. A
// change of permission is seen at most TTL later; failed lookups are never
// kept. The zero value is ready (DefaultPermissionTTL); nil looks every
// time. Commands and the flow rule share one.
type PermissionCache struct {
	TTL time.Duration
	Now func() time.Time

	m ttlcache.Cache[permissionEntry]
}

type permissionEntry struct{ level, role string }

func (c *PermissionCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func permissionKey(owner, repo, login string) string {
	return strings.ToLower(owner + "/" + repo + "\x00" + login)
}

// Lookup answers from the cache, else from the endpoint (keeping the
// answer).
func (c *PermissionCache) Lookup(ctx context.Context, api PermissionAPI, owner, repo, login string) (level, role string, err error) {
	if c == nil {
		return LookupPermission(ctx, api, owner, repo, login)
	}
	key := permissionKey(owner, repo, login)
	if e, ok := c.m.Get(key, c.now()); ok {
		return e.level, e.role, nil
	}
	level, role, err = LookupPermission(ctx, api, owner, repo, login)
	if err != nil {
		return "", "", err
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultPermissionTTL
	}
	c.m.Put(key, permissionEntry{level: level, role: role}, c.now().Add(ttl))
	return level, role, nil
}
