package flow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/hub"

	"github.com/porchbot/porchbot/internal/ttlcache"
)

// DefaultVisibilityTTL is how long a repository's visibility is reused.
const DefaultVisibilityTTL = time.Minute

// VisibilityCache keeps repositories' visibility for TTL
// (DefaultVisibilityTTL when 0), filled from every repository object
// porchbot reads. The zero value is ready.
type VisibilityCache struct {
	TTL time.Duration
	Now func() time.Time
	m   ttlcache.Cache[Visibility]
}

func (c *VisibilityCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Get is the visibility kept for owner/name, Unknown when none is.
func (c *VisibilityCache) Get(owner, name string) Visibility {
	v, _ := c.m.Get(strings.ToLower(owner+"/"+name), c.now())
	return v
}

// Remember keeps r's visibility (nothing when r does not say it).
func (c *VisibilityCache) Remember(r hub.Repository) {
	v := VisibilityOf(r)
	if v == Unknown || r.Owner == "" || r.Name == "" {
		return
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultVisibilityTTL
	}
	c.m.Put(strings.ToLower(r.Owner+"/"+r.Name), v, c.now().Add(ttl))
}

// Forget forgets every visibility kept (as a restart, or a minute
// without news, does).
func (c *VisibilityCache) Forget() { c.m.Clear() }

// AuthorCache keeps the GitHub login of commits' authors, by commit id,
// for good (a commit's author does not change). The zero value is ready.
type AuthorCache struct {
	m ttlcache.Cache[string]
}

// Login is the GitHub account GitHub links the author of commit sha (in
// owner/name) to, "" when it links none (an e-mail address no account
// owns).
func (c *AuthorCache) Login(ctx context.Context, api API, owner, name, sha string) (string, error) {
	if login, ok := c.m.Get(sha, time.Time{}); ok {
		return login, nil
	}
	if api == nil {
		return "", nil
	}
	login, err := api.CommitAuthor(ctx, owner, name, sha)
	if err != nil {
		return "", fmt.Errorf("author of %s in %s/%s: %w", sha, owner, name, err)
	}
	c.m.Put(sha, login, time.Time{})
	return login, nil
}
