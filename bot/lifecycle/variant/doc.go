// Package variant carries out the variants of a repository's
// configuration: the facts of the upstream and of each target
// (variant_facts.go) given to the pure planner (internal/variants), and
// its actions — clone (variant_clone.go), update (variant_update.go),
// removal and orphaning (variant_remove.go) — each under the flow rule
// (variant_flow.go). Controller (variant.go) runs a reconcile.
package variant
