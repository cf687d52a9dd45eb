package downstreams

import "strings"

// facts is what a Registry knows of how much it knows. A process starts
// knowing nothing: a repository it has not visited yet may track any
// package, so what a registry leaves out is not evidence that nothing
// tracks it. An index built from a registry keeps what it said before of
// a repository whose facts are not Known (docs/index.md).
type facts struct {
	// visited: repository (lower case) → its facts are known (false: the
	// last visit left some unknown, see ReplaceUnknown).
	visited map[string]bool
	// complete: a full pass over every installed repository finished with
	// every repository's facts known (PassDone), so a repository never
	// visited since is not installed and tracks nothing.
	complete bool
}

// Known says whether the registry knows what repo tracks: it was visited
// with every fact known (Replace, Forget), or it was not visited and a
// complete pass has shown it is not installed.
func (r *Registry) Known(repo string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	known, visited := r.visited[strings.ToLower(repo)]
	return known || !visited && r.complete
}

// Complete says whether a full pass has finished with every repository's
// facts known (PassDone).
func (r *Registry) Complete() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.complete
}

// PassDone records that a full pass visited installed, the repositories
// of every installation (as listed at the pass's start, in full):
// a repository visited before but not installed any more is forgotten
// (known to track nothing), and the registry is complete from the first
// pass after which every installed repository's facts are known. A
// repository visited with facts unknown later stays unknown by itself
// (Known); completeness is not withdrawn.
func (r *Registry) PassDone(installed []string) {
	listed := make(map[string]bool, len(installed))
	for _, repo := range installed {
		listed[strings.ToLower(repo)] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	all := true
	for repo := range r.visited {
		if !listed[repo] {
			delete(r.byRepo, repo)
			r.visited[repo] = true
		}
	}
	for repo := range listed {
		if !r.visited[repo] {
			all = false
		}
	}
	r.complete = r.complete || all
}
