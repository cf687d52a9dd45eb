package config

import "strings"

// ServerLimits are the server's bounds on repository configurations (from
// the server's settings). A repository configuration may narrow them but
// never widen them; each rule below is checked by Parse and reported at the
// offending value:
//
//   - functions.exec: every name must be in ExecAllowlist. An allowlist
//     entry "name" allows the name with any path; "name=/path" allows it
//     with exactly that path. An empty allowlist allows no exec function.
//   - approvals.required must be at least MinApprovals (and at least 0).
//   - approvals.allowSelfApproval: true is refused unless AllowSelfApproval.
//   - updates.prConcurrentLimit must be at most MaxPRConcurrentLimit when
//     that is above 0; 0 (no limit) is then refused too.
//   - updates.automerge: true is refused unless AllowAutomerge.
//
// Defaults follow the limits (see DefaultFor): a repository that says
// nothing gets max(1, MinApprovals) approvals and a concurrency limit of
// min(10, MaxPRConcurrentLimit).
//
// The zero value is the strictest server: no exec functions, no maximum
// concurrency, no minimum approvals, self-approval and automerge forbidden.
type ServerLimits struct {
	ExecAllowlist        []string
	MaxPRConcurrentLimit int
	MinApprovals         int
	AllowSelfApproval    bool
	AllowAutomerge       bool
}

// execAllowed reports whether the allowlist allows name at path, and the
// path it pins ("" when any path is allowed).
func (l ServerLimits) execAllowed(name, path string) (allowed bool, pinned string) {
	for _, e := range l.ExecAllowlist {
		n, p, hasPath := strings.Cut(strings.TrimSpace(e), "=")
		if n != name {
			continue
		}
		if !hasPath || p == path {
			return true, ""
		}
		pinned = p
	}
	return false, pinned
}

// execNames lists the allowlisted names, for messages.
func (l ServerLimits) execNames() []string {
	out := make([]string, 0, len(l.ExecAllowlist))
	for _, e := range l.ExecAllowlist {
		n, _, _ := strings.Cut(strings.TrimSpace(e), "=")
		out = append(out, n)
	}
	return out
}
