// Package rollout is the pure planner of porchbot's fleet rollouts
// (docs/rollouts.md): an upstream package's downstreams ordered into waves
// (spec.go), what porchbot has observed and been told of the rollout
// (record.go, signed so that only porchbot writes it), the health a
// downstream's deployment reported (health.go), and Decide (plan.go): facts
// in, the update pull requests to open and each wave's state out. Nothing
// here touches GitHub or git; bot/lifecycle/rollout gathers the facts,
// carries out the plan and keeps the record.
package rollout
