package approval

import (
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// The deletion guard (Porch refuses to delete what others use; issue #27
// §3): a proposal that deletes a package which live downstream packages
// track is approved only with an approver's explicit acknowledgement,
// `/porch approve --orphan-downstreams`, unless the repository's
// lifecycle.deletionWithDownstreams is allow (then the fact is not
// gathered: ProposalFacts.Orphans is empty). A deletion nothing tracks is
// judged as before.

// OrphanFlag is the /porch approve flag that acknowledges the downstream
// packages a deletion leaves without their upstream.
const OrphanFlag = "orphan-downstreams"

// OrphanedPackage is a package the proposal's head deletes that downstream
// packages track (the downstream registry's, core.Session.DependentsOf).
type OrphanedPackage struct {
	Package string
	// Downstreams is how many downstream packages track it, named or not
	// in this repository.
	Downstreams int
	// Partial: the registry has not seen every installed repository yet,
	// so more may track it.
	Partial bool
}

// orphanProblem says why the deletion guard is not met ("": met, or no
// package with downstreams is deleted): some package is deleted that
// downstream packages track, and no counted approval acknowledged it.
func orphanProblem(in Inputs, counted []CountedApproval) string {
	if len(in.Orphans) == 0 {
		return ""
	}
	for _, a := range counted {
		if a.OrphanAck {
			return ""
		}
	}
	return OrphansSentence(in.Orphans) + ": " + mdquote.Code("/porch approve --"+OrphanFlag) + " to publish the deletion anyway"
}

// OrphansSentence is "deletes `a`, which 3 downstream packages use" for
// the packages deleted with live downstreams.
func OrphansSentence(orphans []OrphanedPackage) string {
	parts := make([]string, len(orphans))
	for i, o := range orphans {
		parts[i] = fmt.Sprintf("%s, which %s %s", mdquote.Code(o.Package),
			words.Count(o.Downstreams, "downstream package", "downstream packages"), words.Plural(o.Downstreams, "uses", "use"))
		if o.Partial {
			parts[i] += " (or more: porchbot has not seen every repository yet)"
		}
	}
	return "deletes " + strings.Join(parts, "; ")
}

// orphanAckNote is how the check shows an approval that acknowledged the
// orphaned downstreams.
const orphanAckNote = "acknowledges the orphaned downstreams"
