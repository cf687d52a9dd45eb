package rebase

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/words"
)

// Facts are what is known of one draft before its trees are read.
type Facts struct {
	// Head is the draft's head, Published the revision's commit.
	Head, Published plumbing.Hash
	// ForkPoint is the merge base of Head and Published (zero: unrelated
	// histories).
	ForkPoint plumbing.Hash
	// ForkTree and PublishedTree are the package's git tree at the fork
	// point and at the revision (zero: absent); HeadHasPackage says the
	// draft has its package (a Kptfile in its directory).
	ForkTree, PublishedTree plumbing.Hash
	HeadHasPackage          bool
	// Outside are paths outside the package's directory that the draft
	// changed since its fork point (at most a few are kept).
	Outside []string
}

// Why a draft is left alone before any merge.
const (
	SkipCurrent   = "current"   // the revision is in the draft's history already
	SkipMerged    = "merged"    // the draft's head is in the revision's history (its own proposal)
	SkipUnrelated = "unrelated" // no common history with the deployment branch
	SkipNoPackage = "no-package"
	SkipNewBase   = "new-base"  // the package did not exist at the fork point
	SkipSameBase  = "same-base" // the package is the same at the fork point and at the revision
	SkipOutside   = "outside"   // the draft changes files outside its package
)

// Decide says whether a draft is behind the revision and can be rebased
// ("" and nil), or why not: the skip and a sentence for the logs.
func Decide(f Facts) (skip, why string) {
	switch {
	case f.ForkPoint.IsZero():
		return SkipUnrelated, "the draft shares no history with the revision"
	case f.ForkPoint == f.Published:
		return SkipCurrent, "the revision is in the draft's history"
	case f.ForkPoint == f.Head:
		return SkipMerged, "the draft's head is in the revision's history"
	case !f.HeadHasPackage || f.PublishedTree.IsZero():
		return SkipNoPackage, "the draft or the revision has no Kptfile in the package's directory"
	case f.ForkTree.IsZero():
		return SkipNewBase, "the package did not exist at the fork point: both the draft and the revision made it"
	case f.ForkTree == f.PublishedTree:
		return SkipSameBase, fmt.Sprintf("the package at the fork point %s is the revision's", words.ShortSHA(f.ForkPoint.String()))
	case len(f.Outside) > 0:
		return SkipOutside, "the draft changes files outside its package: " + strings.Join(f.Outside, ", ")
	}
	return "", ""
}
