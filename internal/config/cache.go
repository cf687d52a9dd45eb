package config

import (
	"strings"
	"sync"
)

// Cache remembers, per repository, the last configuration that parsed, and
// the commit it was read at. The lifecycle reads .github/porchbot.yaml from
// the deployment branch; when a push breaks it, the repository keeps running
// on the last good configuration (and the problems are reported) instead of
// stopping or falling back to the defaults. The zero value is ready to use
// and safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	sha string
	cfg *Config
}

// cacheKey normalises "Owner/Name": GitHub repository names are
// case-insensitive.
func cacheKey(repo string) string { return strings.ToLower(repo) }

// Good returns the last good configuration of repo ("owner/name") and the
// commit SHA it was read at; nil and "" when there is none.
func (c *Cache) Good(repo string) (*Config, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[cacheKey(repo)]
	if !ok {
		return nil, ""
	}
	return e.cfg, e.sha
}

// Store records cfg, read at commit sha, as repo's last good configuration.
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

// Forget drops repo (the App was uninstalled, or the repository deleted).
func (c *Cache) Forget(repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, cacheKey(repo))
}
