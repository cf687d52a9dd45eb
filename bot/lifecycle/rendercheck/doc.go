// Package rendercheck renders drafts and reports it: the render of a
// draft branch on push and its "Render <pkg>" commit (draft.go), the
// porchbot/render check and its report (render_check.go,
// render_report.go), render attempts recorded on the check run with poison
// renders quarantined (render_attempts.go), the render states this process
// reported (render_states.go), renders of fork pull requests with
// built-ins only (fork.go), and the porchbot/config check
// (config_check.go).
package rendercheck
