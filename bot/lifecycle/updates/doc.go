// Package updates brings upstream revisions downstream: the update plan
// of one downstream package (update.go, kpt pkg update's merge), its
// branch porch/update/<package> and pull request (update_pr.go,
// update_body.go), the fan-out of a publish to every downstream
// repository (update_fanout.go) within an hourly budget (update_pace.go),
// updates waiting for a slot (update_waiting.go), automerge
// (update_automerge.go), the flow rule between repositories and its
// porchbot/flow check (flow_check.go, update_fanout_visibility.go,
// installation_repos.go), and the deployment's downstreams (downstreams.go).
package updates
