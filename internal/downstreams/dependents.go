package downstreams

import (
	"strings"

	"github.com/porchbot/porchbot/internal/packages"
)

// Who depends on what (docs/downstreams.md, "Who depends on what"): the
// downstream packages of one upstream package, the rule by which a text of
// the upstream repository may name them, and the revision each tracks.

// NameableIn says whether a text readable by every reader of repository
// thread (its package index, a reply, a pull request body, a check run)
// may name d's repository: d is a package of thread itself, or its
// repository is public. A private or internal downstream repository of
// another repository is never named there, whatever the thread's own
// visibility: the package index applies the same rule.
func (d Downstream) NameableIn(thread string) bool {
	return strings.EqualFold(d.Repo, thread) || d.Public
}

// OfPackage keeps the downstreams of ds (Registry.Tracking of repository
// self) whose upstream directory is dir, in any directory form
// (NormalizeDir). A package of self at dir or under it is left out: it is
// the package itself, or one of its subpackages, which goes wherever the
// package goes.
func OfPackage(ds []Downstream, self, dir string) []Downstream {
	dir = NormalizeDir(dir)
	var out []Downstream
	for _, d := range ds {
		if NormalizeDir(d.Upstream.Directory) != dir {
			continue
		}
		if strings.EqualFold(d.Repo, self) && within(NormalizeDir(d.Dir), dir) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// within: p is dir or a path under it ("" is the repository root).
func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// TrackedRevision is the revision of upstream package pkg that d's Kptfile
// names: the tag <pkg>/vN of its upstreamLock's ref, else of its
// upstream's ref; 0 when neither names one.
func (d Downstream) TrackedRevision(pkg string) int {
	ref := d.Upstream.Ref
	if d.Lock != nil && d.Lock.Ref != "" {
		ref = d.Lock.Ref
	}
	if p, n, ok := packages.ParseTagName(strings.TrimPrefix(ref, "refs/tags/")); ok && p == pkg {
		return n
	}
	return 0
}

// TrackedRef is what d's Kptfile says it tracks, for people: the ref of
// its upstreamLock (else of its upstream), and the locked commit when
// there is one.
func (d Downstream) TrackedRef() (ref, commit string) {
	ref = d.Upstream.Ref
	if d.Lock != nil {
		if d.Lock.Ref != "" {
			ref = d.Lock.Ref
		}
		commit = d.Lock.Commit
	}
	return strings.TrimPrefix(ref, "refs/tags/"), commit
}
