package approval

import "github.com/porchbot/porchbot/internal/config"

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
