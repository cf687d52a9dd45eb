package core

import (
	"context"

	"github.com/porchbot/porchbot/internal/downstreams"
)

// Dependents are the downstream packages known to track one package of a
// session's repository (docs/downstreams.md, "Who depends on what"), read
// from the downstream registry: no REST call.
type Dependents struct {
	// All are every downstream package known to track the package, sorted
	// by repository and package; Named those a text of this repository
	// may name (downstreams.Downstream.NameableIn, the package index's
	// rule), Hidden how many of All are not.
	All    []downstreams.Downstream
	Named  []downstreams.Downstream
	Hidden int
	// Complete: the registry has seen every installed repository (a first
	// resync pass has finished); otherwise All may be partial.
	Complete bool
	// Known: the session has a registry at all (false in tools and tests
	// that run without one: nothing is known).
	Known bool
}

// DependentsOf are the downstream packages the registry knows to track the
// package at dir (a path from the repository root) of the session's
// repository. A package of this repository at dir or under it is not one:
// it goes with the package (downstreams.OfPackage).
func (s *Session) DependentsOf(ctx context.Context, dir string) Dependents {
	if s.Downstreams == nil {
		return Dependents{}
	}
	self := s.Repo.FullName()
	d := Dependents{Known: true, Complete: s.Downstreams.DownstreamsComplete(),
		All: downstreams.OfPackage(s.Downstreams.TrackingDownstreams(ctx, s), self, dir)}
	for _, ds := range d.All {
		if ds.NameableIn(self) {
			d.Named = append(d.Named, ds)
		} else {
			d.Hidden++
		}
	}
	return d
}
