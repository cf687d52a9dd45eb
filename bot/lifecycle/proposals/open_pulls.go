package proposals

import (
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
)

// Open pull requests are read by the listing, the resync's proposals and
// the updates waiting for a slot. Two things keep that cheap in a fleet of
// quiet repositories: every reader asks with one address, and a resync
// pass proves, when it can, that a repository has none and asks nothing.

// OpenPullsOptions ask for the first page of a repository's open pull
// requests as every reader of them asks (the listing, the resync's
// proposals, the updates waiting for a slot): one address, so after the
// first reader of a pass the others are revalidated with its ETag, a 304
// that GitHub does not charge (internal/github ConditionalCache). Readers
// filter by base branch themselves.
func OpenPullsOptions() hub.PullQuery {
	return hub.PullQuery{State: "open", Page: hub.Page{PerPage: listPullsPerPage}}
}

// NoOpenPulls: a resync proved the repository has no open pull request.
func NoOpenPulls(s *core.Session) bool { return s.NoOpenPulls }
