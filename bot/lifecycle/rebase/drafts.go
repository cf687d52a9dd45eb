package rebase

import (
	"context"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/internal/config"
)

// DefaultMaxDrafts bounds the drafts one publish rebases.
const DefaultMaxDrafts = 20

// Revision is a published revision drafts are rebased on.
type Revision struct {
	Package, Tag string
	Commit       plumbing.Hash
}

// Latest are the newest revision of each package a publish tagged (a
// publish that tagged earlier untagged landings too rebases on the last).
func Latest(published []publish.PublishedRevision) []Revision {
	var out []Revision
	at := map[string]int{}
	newest := map[string]int{}
	for _, p := range published {
		i, seen := at[p.Package]
		switch {
		case !seen:
			at[p.Package], newest[p.Package] = len(out), p.Revision
			out = append(out, Revision{Package: p.Package, Tag: p.Tag, Commit: p.Commit})
		case p.Revision > newest[p.Package]:
			newest[p.Package] = p.Revision
			out[i] = Revision{Package: p.Package, Tag: p.Tag, Commit: p.Commit}
		}
	}
	return out
}

// API is the GitHub surface of the rebase: only the conflicts comment
// calls it (the open proposals, their comments, one comment).
type API struct {
	Proposal approval.ProposalAPI
	// Identity is who porchbot's commits are by.
	Identity core.Identity
}

// Options bound a publish's rebases.
type Options struct {
	// MaxDrafts is the most drafts looked at per publish
	// (DefaultMaxDrafts when 0); the others wait for the next publish.
	MaxDrafts int
}

// Outcome is what a publish did to the drafts of what it published.
type Outcome struct {
	Drafts []DraftOutcome
	// Deferred counts drafts past Options.MaxDrafts, not looked at.
	Deferred int
}

// Count is the number of drafts in state.
func (o *Outcome) Count(state string) int {
	n := 0
	for _, d := range o.Drafts {
		if d.State == state {
			n++
		}
	}
	return n
}

// Enabled is lifecycle.rebaseDrafts (true without a configuration).
func Enabled(cfg *config.Config) bool {
	return cfg == nil || cfg.Lifecycle.RebaseDrafts
}

// Drafts rebases the drafts of each revision's package on it (the package
// doc: merge, lease, conflicts), at most opts.MaxDrafts drafts in all, in
// ref order. The drafts are those of the session's fetch; the caller
// checks Enabled. Conflicts are listed once per revision on the draft's
// open proposal. Errors of one draft are in its outcome (Failed) and the
// logs; the error returned is the context's, or the listing's.
func Drafts(ctx context.Context, s *core.Session, api API, revs []Revision, opts Options) (*Outcome, error) {
	out := &Outcome{}
	if len(revs) == 0 {
		return out, nil
	}
	limit := opts.MaxDrafts
	if limit <= 0 {
		limit = DefaultMaxDrafts
	}
	byPkg := map[string]Revision{}
	for _, r := range revs {
		byPkg[r.Package] = r
	}
	drafts, err := s.DraftBranches(ctx)
	if err != nil {
		return out, err
	}
	start := time.Now()
	var comments conflictComments
	for _, d := range drafts {
		rev, ok := byPkg[d.Package]
		if !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if len(out.Drafts) >= limit {
			out.Deferred++
			continue
		}
		log := s.Log.WithFields(logrus.Fields{"package": d.Package, "ref": d.Branch, "revision": rev.Tag})
		do := rebaseDraft(ctx, s, api.Identity, d, rev, log)
		if do.State == Conflicts {
			n, err := comments.post(ctx, s, api, do)
			if err != nil {
				log.WithError(err).Warn("conflicts of the rebase not commented")
			}
			do.Commented = n
		}
		out.Drafts = append(out.Drafts, do)
	}
	s.Log.WithFields(logrus.Fields{"rebased": out.Count(Rebased), "conflicts": out.Count(Conflicts), "moved": out.Count(Moved),
		"failed": out.Count(Failed), "deferred": out.Deferred, "elapsed": time.Since(start).String()}).Info("drafts rebased on the published revisions")
	return out, nil
}
