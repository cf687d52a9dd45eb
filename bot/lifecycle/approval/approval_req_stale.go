package approval

import (
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

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
