// Package index builds and verifies porchbot's package index (SPEC §8):
// index.yaml, a PackageIndex listing every package of a repository and every
// published revision (tag, commit, content digest, publish time, approvers),
// with the package's upstream, description, keywords and site and the
// downstream packages known to track it — in the spirit of a Helm chart
// repository's index, so a client resolves versions without cloning.
//
// It is pure over a Source (tags and package trees of one repository):
// the bot's source is its git cache, `porchbot index` reads a checkout or a
// clone, and both give the same bytes for the same repository.
package index
