package core

import (
	"context"

	"github.com/porchbot/porchbot/internal/downstreams"
)

// DownstreamRegistry gives the downstream packages known to track any
// package of the session's repository (bot.App.TrackingDownstreams: the
// App's registry, kept by resync and by pushes that change a Kptfile; no
// REST call).
type DownstreamRegistry interface {
	TrackingDownstreams(ctx context.Context, s *Session) []downstreams.Downstream
	// DownstreamsKnown says whether the registry knows which packages of
	// repository track others (downstreams.Registry.Known): if not, the
	// index keeps the downstreams it last listed there.
	DownstreamsKnown(repository string) bool
}
