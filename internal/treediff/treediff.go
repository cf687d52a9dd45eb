// Package treediff compares two package trees, files keyed by their
// slash-separated path relative to the package (as gitstore.Cache.ReadTree
// returns them): which files were added, modified or removed. Keys, the
// same comparison over any map, serves what is keyed otherwise (a
// package's resources by identity).
package treediff

import (
	"bytes"
	"sort"
)

// Diff is the change of a package's files between two trees (paths
// relative to the package directory), each list sorted.
type Diff struct {
	Added, Modified, Removed []string
}

// Empty reports whether no file changed.
func (d Diff) Empty() bool { return len(d.Added)+len(d.Modified)+len(d.Removed) == 0 }

// All lists every changed path, sorted.
func (d Diff) All() []string {
	out := append(append(append([]string{}, d.Added...), d.Modified...), d.Removed...)
	sort.Strings(out)
	return out
}

// Change is one file that differs between two trees: Kind is "added",
// "modified" or "deleted".
type Change struct {
	Path string // relative to the package
	Kind string
}

// Changes lists every changed file with its kind, sorted by path.
func (d Diff) Changes() []Change {
	var out []Change
	for _, l := range []struct {
		paths []string
		kind  string
	}{{d.Added, "added"}, {d.Modified, "modified"}, {d.Removed, "deleted"}} {
		for _, p := range l.paths {
			out = append(out, Change{Path: p, Kind: l.kind})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Files compares two package trees (old may be nil).
func Files(old, cur map[string][]byte) Diff {
	var d Diff
	d.Added, d.Modified, d.Removed = Keys(old, cur, bytes.Equal)
	sort.Strings(d.Added)
	sort.Strings(d.Modified)
	sort.Strings(d.Removed)
	return d
}

// Keys compares two maps (old may be nil): the keys only cur has, those
// both have with values that are not the same, and those only old has, in
// no particular order.
func Keys[K comparable, V any](old, cur map[K]V, same func(a, b V) bool) (added, changed, removed []K) {
	for k, v := range cur {
		o, ok := old[k]
		switch {
		case !ok:
			added = append(added, k)
		case !same(o, v):
			changed = append(changed, k)
		}
	}
	for k := range old {
		if _, ok := cur[k]; !ok {
			removed = append(removed, k)
		}
	}
	return added, changed, removed
}
