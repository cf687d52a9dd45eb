// Package flow is porchbot's one rule for content that crosses a
// repository boundary (a clone, an upgrade, the update fan-out of a
// publish, a variant): content of repository A goes into repository B only
//
//   - when whoever caused it (the commenter of a command; for work driven
//     by configuration, the author of the configuration commit) can read A
//     and write B, and
//   - never into a repository that more people can read than A (private or
//     internal into public, private into internal), unless A's own
//     configuration allows it (flows.allowWiderReaders in A's
//     .github/porchbot.yaml).
//
// Decide is the rule as a pure function of the facts; Checker gathers the
// facts from GitHub (the repository, the collaborator-permission and the
// commit endpoints), asking only for what the rule still needs and keeping
// the answers: visibility and permissions for a minute, a commit's author
// for good. Nameable says which repositories a thread may name.
package flow
