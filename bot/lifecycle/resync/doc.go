// Package resync walks repositories again, for lost webhooks, crashes and
// several replicas: drafts without a render, open proposals, merged
// landings not published, update pull requests, downstreams, variants and
// commands nobody answered (resync.go, resync_*.go, update_resync.go), in
// passes over an installation's repositories that yield to user-facing
// work when its rate budget is low (Pass). It is the top of the
// lifecycle: it calls every other concept.
package resync
