package config

import (
	"strings"
	"sync"
)

// Cache remembers, per repository, the configuration in force and the
// commit whose version of the file it is. It is a memo, not the record: the
// record is the repository itself. When the deployment branch's file is
// broken, the lifecycle derives the configuration in force from the branch's
// history (the newest version that passes), so every replica and every
// restart agrees; the cache only saves walking that history again while the
// branch's head stays the same. The zero value is ready to use and safe for
// concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
	// derived holds, per repository, the configurations derived from
	// history for its broken heads (at most maxDerivedHeads per repository:
	// the default and the deployment branch, and the heads they just left).
	derived map[string]map[string]cached
}

type cached struct {
	sha string
	cfg *Config
}

// maxDerivedHeads bounds the broken heads remembered per repository.
const maxDerivedHeads = 4

// cacheKey normalises "Owner/Name": GitHub repository names are
// case-insensitive.
func cacheKey(repo string) string { return strings.ToLower(repo) }

// Good returns the configuration in force in repo ("owner/name") and the
// commit SHA whose version of the file it is; nil and "" when none was read.
func (c *Cache) Good(repo string) (*Config, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[cacheKey(repo)]
	if !ok {
		return nil, ""
	}
	return e.cfg, e.sha
}

// Store records cfg, read at commit sha, as repo's configuration in force.
// A nil cfg is ignored: only good configurations are stored.
func (c *Cache) Store(repo, sha string, cfg *Config) {
	if cfg == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cached{}
	}
	c.m[cacheKey(repo)] = cached{sha: sha, cfg: cfg}
}

// LastGood returns what StoreLastGood recorded for repo's broken head:
// the configuration derived from history and its commit ("" when it is the
// defaults); ok is false when nothing was derived for that head.
func (c *Cache) LastGood(repo, head string) (cfg *Config, sha string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.derived[cacheKey(repo)][head]
	return e.cfg, e.sha, ok
}

// StoreLastGood records cfg, the version of commit sha ("" for the
// defaults), as the configuration in force while repo's file is broken at
// head; it is also repo's configuration in force (Good).
func (c *Cache) StoreLastGood(repo, head, sha string, cfg *Config) {
	if cfg == nil {
		return
	}
	c.Store(repo, sha, cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheKey(repo)
	if c.derived == nil {
		c.derived = map[string]map[string]cached{}
	}
	heads := c.derived[key]
	if heads == nil || len(heads) >= maxDerivedHeads {
		heads = map[string]cached{}
		c.derived[key] = heads
	}
	heads[head] = cached{sha: sha, cfg: cfg}
}

// Forget drops repo (the App was uninstalled, or the repository deleted).
func (c *Cache) Forget(repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, cacheKey(repo))
	delete(c.derived, cacheKey(repo))
}
