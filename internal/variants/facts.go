package variants

import "github.com/porchbot/porchbot/internal/config"

// Source is the upstream side: the repository holding the packages and
// the variants entries of its configuration.
type Source struct {
	Repo     string           // owner/name
	Variants []config.Variant // its `variants:` entries, in order
	// Latest is each upstream package's highest published revision (0 or
	// absent: none published yet).
	Latest map[string]int
}

// Target is what porchbot knows of one repository that a variant may
// target, or that holds packages owned by one of Source's entries.
type Target struct {
	Repo      string // owner/name
	Installed bool   // the App is installed on it (and can read and write)
	Topics    []string
	// Packages are the packages on its deployment branch, by name.
	Packages map[string]Package
	// Open are porchbot's open pull requests of variant work in it.
	Open []Proposal
	// Limit is its updates.prConcurrentLimit (0: no limit), and Busy the
	// porchbot pull requests counted against it that are open now (update
	// and variant pull requests, those in Open included).
	Limit, Busy int
}

// Package is a downstream package as its Kptfile says.
type Package struct {
	// Owner is its OwnerAnnotation, parsed (nil when absent or unreadable:
	// not made by a variant).
	Owner *Ownership
	// Revision is the upstream revision it tracks (its upstreamLock ref
	// <package>/vN; 0 when unknown).
	Revision int
	// Spec is its SpecAnnotation.
	Spec string
}

// Proposal is one of porchbot's open pull requests doing variant work on a
// package: what it brings once merged.
type Proposal struct {
	Number   int
	Package  string
	Kind     Kind // Clone, Update, Adopt, Delete or Orphan
	Owner    Ownership
	Revision int
	Spec     string
}

// brings reports whether merging p gives package the state want.
func (p Proposal) brings(kind Kind, own Ownership, rev int, spec string) bool {
	switch kind {
	case Delete, Orphan:
		return p.Kind == kind
	}
	return p.Kind != Delete && p.Kind != Orphan && p.Owner.SameEntry(own) && p.Revision == rev && p.Spec == spec
}
