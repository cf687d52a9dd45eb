package catalog

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Loader reads one repository's view from porchbot's cache (git and the
// GitHub API): bot/catalog's RepoLoader.
type Loader interface {
	Load(ctx context.Context, ref RepoRef) (*Repository, error)
}

// Cache keeps each repository's view, so a page is rendered from memory:
// a view older than MaxAge is served as it is while a fresh one loads in
// the background; only the first request for a repository waits for its
// load (and concurrent ones share it). A failed load is remembered for
// RetryAfter.
type Cache struct {
	Loader     Loader
	MaxAge     time.Duration
	RetryAfter time.Duration
	// LoadTimeout bounds one load (default one minute).
	LoadTimeout time.Duration
	Now         func() time.Time
	Log         logrus.FieldLogger

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	ref     RepoRef
	repo    *Repository
	err     error
	at      time.Time     // when repo or err was loaded
	loading chan struct{} // closed when the running load ends; nil when none runs
	dirty   bool          // invalidated while loading: load again after
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Get is ref's view: the cached one, or loaded now the first time.
func (c *Cache) Get(ctx context.Context, ref RepoRef) (*Repository, error) {
	key := strings.ToLower(ref.FullName())
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]*cacheEntry{}
	}
	e, ok := c.entries[key]
	if !ok {
		e = &cacheEntry{}
		c.entries[key] = e
	}
	e.ref = ref // the newest names of its installation and default branch
	stale := e.at.IsZero() || c.now().Sub(e.at) >= c.MaxAge || (e.err != nil && c.now().Sub(e.at) >= c.RetryAfter)
	if e.err == nil && e.repo != nil && !stale {
		r := e.repo
		c.mu.Unlock()
		return r, nil
	}
	if e.err != nil && !stale {
		err := e.err
		c.mu.Unlock()
		return nil, err
	}
	wait := e.loading
	if wait == nil {
		wait = make(chan struct{})
		e.loading = wait
		go c.load(e, e.ref, wait)
	}
	if e.repo != nil { // stale: serve it while the fresh one loads
		r := e.repo
		c.mu.Unlock()
		return r, nil
	}
	c.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.repo, e.err
}

// Prefetch starts loading ref's view in the background when none is
// cached or it is stale; it does not wait (the repositories page: the
// next view of it shows the repository).
func (c *Cache) Prefetch(ref RepoRef) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Get starts the load, and returns without waiting for it
	_, _ = c.Get(ctx, ref)
}

// Peek is ref's cached view, if any, without loading.
func (c *Cache) Peek(ref RepoRef) *Repository {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[strings.ToLower(ref.FullName())]; ok {
		return e.repo
	}
	return nil
}

// Invalidate reloads fullName's view now, in the background (an event
// changed the repository), serving the old view meanwhile; a load under way
// is followed by another. A repository never asked for is left alone.
func (c *Cache) Invalidate(fullName string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[strings.ToLower(fullName)]
	switch {
	case !ok:
	case e.loading != nil:
		e.dirty = true
	default:
		e.loading = make(chan struct{})
		go c.load(e, e.ref, e.loading)
	}
}

// Idle waits until no load runs.
func (c *Cache) Idle(ctx context.Context) error {
	for {
		c.mu.Lock()
		var wait chan struct{}
		for _, e := range c.entries {
			if e.loading != nil {
				wait = e.loading
				break
			}
		}
		c.mu.Unlock()
		if wait == nil {
			return nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// load runs one load of ref (e's, as read under c.mu when the load was
// started), detached from the request that asked for it (a stale view
// reloads after its request has ended).
func (c *Cache) load(e *cacheEntry, ref RepoRef, done chan struct{}) {
	timeout := c.LoadTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := c.Loader.Load(ctx, ref)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && c.Log != nil {
		c.Log.WithError(err).WithField("repository", ref.FullName()).Warn("catalog: loading the repository failed")
	}
	switch {
	case err == nil:
		e.repo, e.err = r, nil
	case e.repo == nil:
		e.err = err
	} // a failed reload keeps the view it had
	e.at, e.loading = c.now(), nil
	close(done)
	if e.dirty {
		e.dirty = false
		e.loading = make(chan struct{})
		go c.load(e, e.ref, e.loading)
	}
}
