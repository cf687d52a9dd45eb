package downstreams

import (
	"sync"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// Downstream is one package of a repository's deployment branch that names
// an upstream.
type Downstream struct {
	Repo     string           // owner/name of the repository holding the package
	Package  string           // the package's name (its path) in that repository
	Upstream kptfile.Git      // the Kptfile's upstream.git
	Lock     *kptfile.GitLock // the Kptfile's upstreamLock.git, if any
	Strategy string           // the Kptfile's upstream.updateStrategy, if any
}

// Registry maps upstream packages to their downstream packages. Safe for
// concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byRepo map[string][]Downstream // downstream repo → its packages with an upstream
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byRepo: map[string][]Downstream{}} }

// Replace records repo's packages with an upstream, as found on its
// deployment branch, replacing what was known of it.
func (r *Registry) Replace(repo string, pkgs []Downstream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byRepo[repo] = append([]Downstream(nil), pkgs...)
}

// Find returns the downstream packages whose upstream is the package at
// directory dir of the repository at repoURL.
func (r *Registry) Find(repoURL, dir string) []Downstream {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Downstream
	for _, pkgs := range r.byRepo {
		for _, d := range pkgs {
			if d.Upstream.Repo == repoURL && d.Upstream.Directory == dir {
				out = append(out, d)
			}
		}
	}
	return out
}
