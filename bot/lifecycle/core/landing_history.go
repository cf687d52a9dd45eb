package core

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
)

// LandingHistoryOptions tune history.
type LandingHistoryOptions struct {
	// reviewAt makes upTo a LandingReviewed candidate even when it is not
	// a merge commit (the caller knows the pull request that landed it).
	ReviewAt bool
}

// History walks the first-parent history back from upTo for the package
// name in dir.
func (w *LandingWalker) History(name, dir string, upTo plumbing.Hash, tags RevisionTags, opts LandingHistoryOptions) (*PackageHistory, error) {
	h := &PackageHistory{Package: name, Dir: dir, UpTo: upTo, TaggedAt: tags.At(name, upTo)}
	h.Latest, h.LatestCommit = tags.Latest(name)
	top, err := w.State(upTo, dir)
	if err != nil {
		return nil, err
	}
	if !top.Exists() {
		// Not a package at upTo: only its deletion there is worth reporting.
		c, err := w.Commit(upTo)
		if err != nil {
			return nil, err
		}
		prev, err := w.State(LandingFirstParent(c), dir)
		if err != nil {
			return nil, err
		}
		if prev.Exists() {
			l, err := w.landingOf(c, name, dir, top, prev)
			if err != nil {
				return nil, err
			}
			h.Pending = []Landing{l}
			h.Base, h.BaseTree = LandingFirstParent(c), prev.Tree
		}
		return h, nil
	}

	type entry struct {
		l         Landing
		candidate bool
	}
	var (
		seq     []entry // newest first
		chain   = map[plumbing.Hash]bool{}
		changes int
		x       = upTo
	)
	for steps := 0; ; steps++ {
		if err := w.Ctx.Err(); err != nil {
			return nil, err
		}
		if steps >= MaxLandingWalk {
			st, err := w.State(x, dir)
			if err != nil {
				return nil, err
			}
			h.Base, h.BaseTree, h.Truncated = x, st.Tree, true
			break
		}
		if rev := tags.At(name, x); rev > 0 {
			st, err := w.State(x, dir)
			if err != nil {
				return nil, err
			}
			h.Base, h.BaseRevision, h.BaseTree = x, rev, st.Tree
			chain[x] = true
			break
		}
		chain[x] = true
		c, err := w.Commit(x)
		if err != nil {
			return nil, err
		}
		parent := LandingFirstParent(c)
		cur, err := w.State(x, dir)
		if err != nil {
			return nil, err
		}
		prev, err := w.State(parent, dir)
		if err != nil {
			return nil, err
		}
		l, err := w.landingOf(c, name, dir, cur, prev)
		if err != nil {
			return nil, err
		}
		switch {
		case l.Kind != "":
			seq = append(seq, entry{l: l})
			changes++
		case cur.Exists() && (l.IsMerge() || x == upTo && opts.ReviewAt):
			l.Kind = LandingReviewed
			seq = append(seq, entry{l: l, candidate: true})
		}
		if l.Kind == LandingCreated || l.Kind == LandingDeleted || parent.IsZero() || changes >= MaxBackfill {
			h.Base, h.BaseTree = parent, prev.Tree
			h.Truncated = changes >= MaxBackfill && l.Kind != LandingCreated && !parent.IsZero()
			break
		}
		x = parent
	}

	// Oldest first. A re-review candidate before any change since Base
	// leaves the package as Base has it: never publishable, left out.
	// Later ones count only if their merged side changed the package
	// itself; upTo with reviewAt is judged by the caller (pull request).
	chain[h.Base] = true
	seenChange := false
	for i := len(seq) - 1; i >= 0; i-- {
		e := seq[i]
		switch {
		case !e.candidate:
			seenChange = true
			h.Pending = append(h.Pending, e.l)
		case e.l.Commit == upTo && opts.ReviewAt:
			h.Pending = append(h.Pending, e.l)
		case seenChange:
			ok, err := w.reviewedSide(e.l, chain)
			if err != nil {
				return nil, err
			}
			if ok {
				h.Pending = append(h.Pending, e.l)
			}
		}
	}

	if h.TaggedAt == 0 && h.Latest > h.BaseRevision && !h.LatestCommit.IsZero() {
		desc, err := w.IsFirstParentAncestor(upTo, h.LatestCommit)
		if err != nil && !errors.Is(err, ErrLandingCommitMissing) {
			return nil, err
		}
		if desc {
			h.Superseded, h.Pending = true, nil
		}
	}
	return h, nil
}

// reviewedSide reports whether a merge's side changed the package on its
// own commits (before reaching the deployment branch's chain) and the
// merge result equals that side.
func (w *LandingWalker) reviewedSide(l Landing, chain map[plumbing.Hash]bool) (bool, error) {
	for i, side := range l.Merged {
		if l.MergedTrees[i] != l.Tree {
			continue
		}
		x := side
		for range maxSideWalk {
			if x.IsZero() || chain[x] {
				break
			}
			c, err := w.Commit(x)
			if errors.Is(err, ErrLandingCommitMissing) {
				break
			}
			if err != nil {
				return false, err
			}
			cur, err := w.State(x, l.Dir)
			if err != nil {
				return false, err
			}
			prev, err := w.State(LandingFirstParent(c), l.Dir)
			if errors.Is(err, ErrLandingCommitMissing) {
				break
			}
			if err != nil {
				return false, err
			}
			if cur != prev {
				return true, nil
			}
			x = LandingFirstParent(c)
		}
	}
	return false, nil
}
