package approval

import (
	"strings"

	"github.com/porchbot/porchbot/internal/config"
)

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
