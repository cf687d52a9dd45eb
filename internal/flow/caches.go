package flow

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultVisibilityTTL is how long a repository's visibility is reused.
const DefaultVisibilityTTL = time.Minute

// cacheMax bounds the entries of each cache (the oldest are dropped).
const cacheMax = 4096

// boundedMap is a map that forgets its oldest keys past cacheMax.
type boundedMap[V any] struct {
	mu    sync.Mutex
	m     map[string]V
	order []string
}

func (b *boundedMap[V]) get(key string) (V, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.m[key]
	return v, ok
}

func (b *boundedMap[V]) put(key string, v V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]V{}
	}
	if _, had := b.m[key]; !had {
		b.order = append(b.order, key)
		for len(b.order) > cacheMax {
			delete(b.m, b.order[0])
			b.order = b.order[1:]
		}
	}
	b.m[key] = v
}

// clear forgets every key.
func (b *boundedMap[V]) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m, b.order = nil, nil
}

// VisibilityCache keeps repositories' visibility for TTL
// (DefaultVisibilityTTL when 0), filled from every repository object
// porchbot reads. The zero value is ready.
type VisibilityCache struct {
	TTL time.Duration
	Now func() time.Time
	m   boundedMap[visibilityEntry]
}

type visibilityEntry struct {
	v       Visibility
	expires time.Time
}

func (c *VisibilityCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Get is the visibility kept for owner/name, Unknown when none is.
func (c *VisibilityCache) Get(owner, name string) Visibility {
	e, ok := c.m.get(strings.ToLower(owner + "/" + name))
	if !ok || !c.now().Before(e.expires) {
		return Unknown
	}
	return e.v
}

// Remember keeps r's visibility (nothing when r does not say it).
func (c *VisibilityCache) Remember(r *github.Repository) {
	v := VisibilityOf(r)
	if v == Unknown || r.GetOwner().GetLogin() == "" || r.GetName() == "" {
		return
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultVisibilityTTL
	}
	c.m.put(strings.ToLower(r.GetOwner().GetLogin()+"/"+r.GetName()), visibilityEntry{v: v, expires: c.now().Add(ttl)})
}

// Forget forgets every visibility kept (as a restart, or a minute
// without news, does).
func (c *VisibilityCache) Forget() { c.m.clear() }

// AuthorCache keeps the GitHub login of commits' authors, by commit id,
// for good (a commit's author does not change). The zero value is ready.
type AuthorCache struct {
	m boundedMap[string]
}

// Login is the GitHub account GitHub links the author of commit sha (in
// owner/name) to, "" when it links none (an e-mail address no account
// owns).
func (c *AuthorCache) Login(ctx context.Context, api API, owner, name, sha string) (string, error) {
	if login, ok := c.m.get(sha); ok {
		return login, nil
	}
	if api == nil {
		return "", nil
	}
	rc, _, err := api.GetCommit(ctx, owner, name, sha, nil)
	if err != nil {
		return "", fmt.Errorf("author of %s in %s/%s: %w", sha, owner, name, err)
	}
	login := rc.GetAuthor().GetLogin()
	c.m.put(sha, login)
	return login, nil
}
