package approval

import (
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// The requirements of the approval policy, one predicate each: an
// approver, not self-approval, not stale, readiness gates met. Evaluate
// (approval_policy.go) applies them to the Inputs.

// approverRefused reports that v's user is not an allowed approver
// (Vote.Allowed, resolved by the facts), and why.
func approverRefused(policy config.Approvals, v Vote) (bool, string) {
	if v.Allowed {
		return false, ""
	}
	d := ""
	if len(policy.Approvers) == 0 {
		d = "approvers are users with write access to the repository"
	} else {
		names := make([]string, len(policy.Approvers))
		for i, a := range policy.Approvers {
			names[i] = a.String()
		}
		d = "approvers are " + strings.Join(names, ", ")
	}
	if v.Note != "" {
		return true, v.Note + "; " + d
	}
	return true, d
}

// SelfExcluded reports that user's approval is refused as self-approval,
// and why: user is the proposal's requester (ProposalRequester) and
// approvals.allowSelfApproval is false, or the requester is not known (a
// bot-opened proposal whose requester record is missing) and so nobody's
// approval can be told from self-approval.
func SelfExcluded(policy config.Approvals, requester, user string) (bool, string) {
	if policy.AllowSelfApproval {
		return false, ""
	}
	if requester == "" {
		return true, "the record of who asked for this proposal is missing (a deleted porchbot comment?), so no approval can be told from self-approval; close it and ask again"
	}
	if LoginKey(requester) == LoginKey(user) {
		return true, "the author's own approval does not count (approvals.allowSelfApproval is false)"
	}
	return false, ""
}

// staleApproval reports that v, given on another commit than the head,
// approved other content than the head's: the proposal digest there
// differs (a package changed, was added or was removed), or is unknown.
// The detail names the packages that differ when the vote's per-package
// digests are known.
func staleApproval(v Vote, in Inputs) (bool, string) {
	if v.Commit == in.Head || (v.Digest != "" && v.Digest == in.HeadDigest) {
		return false, ""
	}
	if v.Digest == "" {
		return true, fmt.Sprintf("given on %s, which is no longer known; approve the head %s again", words.CommitOrUnknown(v.Commit), words.CommitOrUnknown(in.Head))
	}
	var changed []string
	if v.Digests != nil {
		for _, p := range in.Packages {
			then, ok := v.Digests[p.Name]
			switch {
			case !ok:
				continue
			case then == p.Digest:
				continue
			case then == digestAbsent:
				changed = append(changed, mdquote.Code(p.Name)+" was added")
			case p.Digest == digestAbsent:
				changed = append(changed, mdquote.Code(p.Name)+" was removed")
			default:
				changed = append(changed, mdquote.Code(p.Name)+" changed")
			}
		}
	}
	if len(changed) == 0 {
		return true, fmt.Sprintf("given on %s; the package content changed since (head %s)", words.CommitOrUnknown(v.Commit), words.CommitOrUnknown(in.Head))
	}
	return true, fmt.Sprintf("given on %s; since then %s (head %s)", words.CommitOrUnknown(v.Commit), strings.Join(changed, ", "), words.CommitOrUnknown(in.Head))
}

// carriedNote says why an approval given on an older commit still counts:
// the packages are the same trees, or only Kptfile status.conditions
// changed (readiness set by automation). "" for an approval of the head.
func carriedNote(v Vote, in Inputs) string {
	switch {
	case v.Commit == in.Head:
		return ""
	case v.SameTrees:
		return "same package content as the head"
	default:
		return "only Kptfile status.conditions changed since"
	}
}

// unmetGates are the readiness gates whose condition is not True (Kptfile
// info.readinessGates against status.conditions, of every package the
// proposal changes).
func unmetGates(gates []GateStatus) []GateStatus {
	var out []GateStatus
	for _, g := range gates {
		if !g.Met() {
			out = append(out, g)
		}
	}
	return out
}
