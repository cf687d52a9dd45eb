// Package treediff compares two package trees, files keyed by their
// slash-separated path relative to the package (as gitstore.Cache.ReadTree
// returns them): which files were added, modified or removed.
package treediff

import (
	"bytes"
	"sort"
)

// Diff is the change of a package's files between two trees (paths
// relative to the package directory).
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

// Files compares two package trees (old may be nil).
func Files(old, cur map[string][]byte) Diff {
	var d Diff
	for p, b := range cur {
		o, ok := old[p]
		switch {
		case !ok:
			d.Added = append(d.Added, p)
		case !bytes.Equal(o, b):
			d.Modified = append(d.Modified, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			d.Removed = append(d.Removed, p)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Modified)
	sort.Strings(d.Removed)
	return d
}
