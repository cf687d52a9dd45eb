// Package rollout carries out porchbot's fleet rollouts (docs/rollouts.md)
// over GitHub: the record of each rollout kept on the upstream
// repository's porch/rollouts branch (record_store.go), the facts a plan
// needs (facts.go: the downstreams from the registry, the revision each
// holds, its repository's topics), a planning step that opens the update
// pull requests the plan offers through the update fan-out (step.go),
// deployment reports read from the webhooks of downstream repositories
// (observe.go), the approvers' pause, resume and skip-wave (control.go),
// and the plan in words (status.go). The planner itself is pure:
// internal/rollout.
package rollout
