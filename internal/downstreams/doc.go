// Package downstreams knows which packages, in which installed repositories,
// track which upstream package (their Kptfile's upstream.git repo and
// directory), so a publish finds its downstream packages without scanning
// every repository. It is pure: the bot feeds it from pushes to deployment
// branches and from resync.
package downstreams
