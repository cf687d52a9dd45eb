// Package hub is porchbot's own view of GitHub: the few facts the
// lifecycle needs of a pull request, its reviews, comments and check runs,
// a repository, its issues and releases, as plain values; and API, every
// call the lifecycle makes, in those values.
//
// go-github stays at the edge: internal/github's API implements API over
// an installation's go-github client (and converts webhook payloads with
// its PullOf, CommentOf and CheckRunOf functions); hubtest.Fake is a value fake
// for unit tests of the pure parts. Nothing in the lifecycle imports
// go-github. Each lifecycle step still names the calls it needs in a small
// interface of its own (a subset of API).
package hub
