// Package fleet runs porchbot's fleet rollouts as the App hears GitHub
// (docs/rollouts.md): which events step which rollout (a publish, a
// downstream's merge, a deployer's report, a soak's wake, the resync:
// rollouts.go), the reports of GitHub's webhooks in the rollouts' terms
// (reports.go), the wakes of soaks (wakes.go), the repositories' topics a
// wave selects by (topics.go), and each rollout's state for the package
// index (states.go). The rollouts themselves are bot/lifecycle/rollout's,
// planned by internal/rollout.
package fleet
