// Package discovery finds which packages of installed repositories track
// which upstream (docs/downstreams.md): a repository's deployment branch
// indexed into the downstream registry (Index: upstreams elsewhere, not
// installed or unreadable skipped, each counted), the downstreams of an
// upstream package that its installation lets read it (Of), and this
// GitHub's host. No scan per publish: the registry is kept from pushes
// and the resync.
package discovery
