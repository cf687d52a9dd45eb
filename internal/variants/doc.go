// Package variants is porchbot's PackageVariantSet controller as a pure
// planner (SPEC §7): given the `variants:` entries of the repository that
// holds the upstream packages, the upstream's published revisions and the
// facts of every target repository (installed or not, topics, its packages
// with their ownership annotations, porchbot's open pull requests there),
// Plan returns what to do for each target package: clone, update, adopt,
// delete, orphan, or only report its state. It never touches GitHub or git:
// the bot gathers the facts and carries the actions out as pull requests,
// so planning again after the pull requests are open, or merged, plans
// nothing more (the planner converges; see the fuzz test).
//
// Ownership lives in GitHub only: the downstream Kptfile's annotation
// porchbot.dev/variant names the upstream repository, the variants entry
// (upstream package and downstream template) and the deletion policy it was
// made with, and porchbot.dev/variant-spec the digest of the mutations it
// carries, so restarts and replicas agree with no state of their own.
package variants
