package rebase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/update"
	"github.com/porchbot/porchbot/internal/words"
)

// What became of one draft.
const (
	Rebased   = "rebased"   // the merge commit was pushed
	Current   = "current"   // the merge leaves the package as it is: untouched
	Skipped   = "skipped"   // Decide left it alone (Skip says why)
	Conflicts = "conflicts" // not pushed; listed on its open proposal
	Moved     = "moved"     // the branch moved under the lease: left for the next publish
	Failed    = "failed"
)

// DraftOutcome is what a publish did to one draft.
type DraftOutcome struct {
	Branch, Package, Tag string
	State                string
	// Skip is Decide's reason when State is Skipped; Why says it in words
	// (or the error when Failed).
	Skip, Why string
	// Head is the pushed merge commit (Rebased).
	Head plumbing.Hash
	// Conflicts are the fields both sides changed (Conflicts); Commented
	// the proposal they were listed on (0: none open, or listed before).
	Conflicts []update.Conflict
	Commented int
}

// maxOutside bounds the paths outside the package that Facts keeps.
const maxOutside = 3

// readFacts reads a draft's Facts from the git cache.
func readFacts(ctx context.Context, s *core.Session, d core.DraftBranch, published plumbing.Hash, dir string) (Facts, error) {
	f := Facts{Head: d.Head, Published: published}
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		w := s.Walker(ctx, repo)
		hc, err := w.Commit(d.Head)
		if err != nil {
			return err
		}
		pc, err := w.Commit(published)
		if err != nil {
			return err
		}
		bases, err := hc.MergeBase(pc)
		if err != nil {
			return fmt.Errorf("merge base of %s and %s: %w", d.Head, published, err)
		}
		if len(bases) == 0 {
			return nil
		}
		f.ForkPoint = bases[0].Hash
		if f.ForkPoint == published || f.ForkPoint == d.Head {
			return nil
		}
		var fork, pub, head core.LandingState
		for _, st := range []struct {
			at  plumbing.Hash
			out *core.LandingState
		}{{f.ForkPoint, &fork}, {published, &pub}, {d.Head, &head}} {
			if *st.out, err = w.State(st.at, dir); err != nil {
				return err
			}
		}
		f.ForkTree, f.PublishedTree, f.HeadHasPackage = fork.Tree, pub.Tree, head.Exists()
		f.Outside, err = outsideChanges(ctx, w, f.ForkPoint, d.Head, dir)
		return err
	})
	if err != nil {
		return f, fmt.Errorf("read %s: %w", d.Branch, err)
	}
	return f, nil
}

// outsideChanges lists (at most maxOutside) paths outside dir that differ
// between the commits from and to.
func outsideChanges(ctx context.Context, w *core.LandingWalker, from, to plumbing.Hash, dir string) ([]string, error) {
	ft, err := w.RootTree(from)
	if err != nil {
		return nil, err
	}
	tt, err := w.RootTree(to)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTreeWithOptions(ctx, ft, tt, nil)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	var out []string
	for _, ch := range changes {
		for _, name := range []string{ch.From.Name, ch.To.Name} {
			if name != "" && !strings.HasPrefix(name, dir+"/") && len(out) < maxOutside && (len(out) == 0 || out[len(out)-1] != name) {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// rebaseDraft rebases one draft of rev's package onto rev: facts, decision,
// the merge, and the merge commit pushed with the draft's head as read as
// its lease (one attempt: a draft that moved is the next publish's).
// Conflicts are returned, not commented.
func rebaseDraft(ctx context.Context, s *core.Session, id core.Identity, d core.DraftBranch, rev Revision, log logrus.FieldLogger) DraftOutcome {
	out := DraftOutcome{Branch: d.Branch, Package: d.Package, Tag: rev.Tag}
	fail := func(err error) DraftOutcome {
		out.State, out.Why = Failed, err.Error()
		log.WithError(err).Warn("draft not rebased")
		return out
	}
	dir := core.PackageDir(s.Config.Packages.Root, d.Package)
	f, err := readFacts(ctx, s, d, rev.Commit, dir)
	if err != nil {
		return fail(err)
	}
	if out.Skip, out.Why = Decide(f); out.Skip != "" {
		out.State = Skipped
		log.WithField("skip", out.Skip).Debug("draft not rebased: " + out.Why)
		return out
	}
	var t Trees
	for _, tr := range []struct {
		at  plumbing.Hash
		out *update.Files
	}{{f.ForkPoint, &t.Origin}, {rev.Commit, &t.Updated}, {d.Head, &t.Local}} {
		files, err := core.LoadPackage(ctx, s.Git, tr.at, dir)
		if err != nil {
			return fail(err)
		}
		*tr.out = files
	}
	m, err := Merge(t)
	if err != nil {
		return fail(err)
	}
	switch {
	case len(m.Conflicts) > 0:
		out.State, out.Conflicts = Conflicts, m.Conflicts
		log.WithField("conflicts", len(m.Conflicts)).Info("draft not rebased: conflicts")
		return out
	case !m.Changed:
		out.State = Current
		log.Debug("draft's package already has the revision's changes: untouched")
		return out
	}
	h, err := s.CommitPackage(ctx, id, core.PackageCommit{Branch: d.Branch, Parent: d.Head, Lease: d.Head, Onto: rev.Commit,
		Dir: dir, Files: m.Files, Message: commitMessage(d, rev, f.ForkPoint, m), Trailer: trailer(d, rev, f.ForkPoint)})
	if errors.Is(err, gitstore.ErrLeaseBroken) {
		out.State = Moved
		log.Info("draft moved under the lease: not rebased (the next publish takes it)")
		return out
	}
	if err != nil {
		return fail(err)
	}
	out.State, out.Head = Rebased, h
	log.WithField("commit", h.String()).Info("draft rebased")
	return out
}

// commitMessage is "Rebase <pkg> on <tag>" and what was merged.
func commitMessage(d core.DraftBranch, rev Revision, fork plumbing.Hash, m Merged) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Rebase %s on %s\n\n", d.Package, rev.Tag)
	fmt.Fprintf(&b, "porchbot merged %s (%s) into %s: the draft's changes since\n%s, by kpt pkg update's resource-merge, on the published revision.\n",
		rev.Tag, words.ShortSHA(rev.Commit.String()), d.Branch, words.ShortSHA(fork.String()))
	if len(m.Resolved) > 0 {
		fmt.Fprintf(&b, "Merged resource by resource: %s.\n", strings.Join(m.Resolved, ", "))
	}
	return b.String()
}

// trailer is Porch's trailer of the rebase: an upgrade task (Porch's
// 3-way merge) from the fork point to the revision, on the draft.
func trailer(d core.DraftBranch, rev Revision, fork plumbing.Hash) packages.Trailer {
	spec, _ := json.Marshal(map[string]any{
		"oldUpstreamRef":          map[string]string{"name": fork.String()},
		"newUpstreamRef":          map[string]string{"name": rev.Tag},
		"localPackageRevisionRef": map[string]string{"name": d.Branch},
		"strategy":                kptfile.ResourceMerge})
	return packages.Trailer{Package: d.Package, WorkspaceName: d.Workspace, Revision: "0",
		Task: &packages.Task{Type: packages.TaskUpgrade, Spec: spec}}
}
