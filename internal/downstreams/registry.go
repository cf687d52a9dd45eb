package downstreams

import (
	"sort"
	"strings"
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
	// Dir is the package's path from the repository root (Package under
	// packages.root).
	Dir string
	// InstallationID is the App installation of Repo.
	InstallationID int64
	// Labels are the package's Kptfile labels (a rollout's waves select
	// by them).
	Labels map[string]string
	// Public: Repo is a public repository, so any reader of the
	// upstream's package index may see it named there.
	Public bool
}

// entry is a Downstream with its upstream's identity.
type entry struct {
	Downstream
	key string // RepoID.String() of Upstream.Repo
	dir string // NormalizeDir(Upstream.Directory)
}

// Registry maps upstream packages to their downstream packages. Safe for
// concurrent use.
type Registry struct {
	mu     sync.RWMutex
	byRepo map[string][]entry // downstream repo (lower case) → its packages with an upstream
	facts                     // which repositories' facts are known (facts.go)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byRepo: map[string][]entry{}, facts: facts{visited: map[string]bool{}}}
}

// Replace records repo's packages with an upstream, as found on its
// deployment branch, replacing what was known of it: repo's facts are
// known (Known). Packages whose upstream URL is not a remote repository
// are kept out (Find could never return them).
func (r *Registry) Replace(repo string, pkgs []Downstream) { r.record(repo, pkgs, true) }

// ReplaceUnknown is Replace for a visit that left some of repo's facts
// unknown (its visibility, whether an upstream is installed: a refused or
// failed call): the packages found are recorded, but repo is not Known,
// so an index keeps what it last said of repo.
func (r *Registry) ReplaceUnknown(repo string, pkgs []Downstream) { r.record(repo, pkgs, false) }

func (r *Registry) record(repo string, pkgs []Downstream, known bool) {
	es := make([]entry, 0, len(pkgs))
	for _, d := range pkgs {
		id, err := ParseRepoURL(d.Upstream.Repo)
		if err != nil {
			continue
		}
		es = append(es, entry{Downstream: d, key: id.String(), dir: NormalizeDir(d.Upstream.Directory)})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := strings.ToLower(repo)
	r.visited[key] = known
	if len(es) == 0 {
		delete(r.byRepo, key)
		return
	}
	r.byRepo[key] = es
}

// Forget drops everything known of repo (uninstalled, deleted): it is
// known to track nothing.
func (r *Registry) Forget(repo string) { r.Replace(repo, nil) }

// Find returns the downstream packages whose upstream is the package at
// directory dir of the repository at repoURL, in any URL form
// (ParseRepoURL) and directory form (NormalizeDir), sorted by repository
// and package.
func (r *Registry) Find(repoURL, dir string) []Downstream {
	id, err := ParseRepoURL(repoURL)
	if err != nil {
		return nil
	}
	key, dir := id.String(), NormalizeDir(dir)
	r.mu.RLock()
	var out []Downstream
	for _, es := range r.byRepo {
		for _, e := range es {
			if e.key == key && e.dir == dir {
				out = append(out, e.Downstream)
			}
		}
	}
	r.mu.RUnlock()
	sortDownstreams(out)
	return out
}

// Tracking returns every downstream package whose upstream is a package
// of the repository at repoURL (any directory), sorted as Find sorts.
func (r *Registry) Tracking(repoURL string) []Downstream {
	id, err := ParseRepoURL(repoURL)
	if err != nil {
		return nil
	}
	key := id.String()
	r.mu.RLock()
	var out []Downstream
	for _, es := range r.byRepo {
		for _, e := range es {
			if e.key == key {
				out = append(out, e.Downstream)
			}
		}
	}
	r.mu.RUnlock()
	sortDownstreams(out)
	return out
}

func sortDownstreams(out []Downstream) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].Repo != out[j].Repo {
			return out[i].Repo < out[j].Repo
		}
		return out[i].Package < out[j].Package
	})
}

// Of returns the packages of repo that track an upstream, sorted by
// package.
func (r *Registry) Of(repo string) []Downstream {
	r.mu.RLock()
	es := r.byRepo[strings.ToLower(repo)]
	out := make([]Downstream, len(es))
	for i, e := range es {
		out[i] = e.Downstream
	}
	r.mu.RUnlock()
	sortDownstreams(out)
	return out
}

// Repos is the number of repositories with at least one downstream
// package.
func (r *Registry) Repos() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byRepo)
}
