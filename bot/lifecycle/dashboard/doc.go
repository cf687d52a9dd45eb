// Package dashboard keeps the "Package dashboard" issue: the facts
// gathered from the repository (dashboard_gather.go), the pure body and
// its boxes (dashboard.go), find-or-create and the close rule
// (dashboard_issue.go), and the debounce that keeps a busy repository's
// edits few (dashboard_debounce.go). Ticked boxes run as /porch commands
// (bot/commands).
package dashboard
