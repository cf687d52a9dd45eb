package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// What a proposal changes: every top-level package whose tree differs
// between the merge base of the head with the deployment branch and the
// head (created, changed or removed; a subpackage's change is its
// package's). Pure reads of the git cache.

// PackageChange is one package a proposal changes, at its head.
type PackageChange struct {
	Name string
	Dir  string
	// Kind is created, changed or deleted against the merge base ("" for a
	// draft's package that the head leaves as the base has it).
	Kind core.LandingKind
	// Digest is the content digest at the head (content_digest.go), Tree
	// the package's git tree id there ("" when absent).
	Digest string
	Tree   string
}

// proposalScope computes the changed packages of head against base and,
// for any commit, their digests. It is used under Cache.With only.
type proposalScope struct {
	w    *core.LandingWalker
	pkgs []PackageChange
}

// newProposalScope lists the packages head changes against its merge base
// with base (base itself when it is zero or unrelated: all of head's
// packages then). extra is a package always included (a draft's own).
func newProposalScope(ctx context.Context, repo *git.Repository, root string, base, head plumbing.Hash, extra string) (*proposalScope, error) {
	w := core.NewLandingWalker(ctx, repo, root)
	hc, err := w.Commit(head)
	if err != nil {
		return nil, err
	}
	var mb plumbing.Hash
	if !base.IsZero() {
		bc, err := w.Commit(base)
		if err != nil {
			return nil, err
		}
		bases, err := hc.MergeBase(bc)
		if err != nil {
			return nil, fmt.Errorf("merge base of %s and %s: %w", head, base, err)
		}
		if len(bases) > 0 {
			mb = bases[0].Hash
		}
	}
	ht, err := w.RootTree(head)
	if err != nil {
		return nil, err
	}
	var bt *object.Tree
	if !mb.IsZero() {
		if bt, err = w.RootTree(mb); err != nil {
			return nil, err
		}
	}
	dirs, err := w.ChangedDirs(bt, ht)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", mb, head, err)
	}
	if extra != "" {
		dirs[core.PackageDir(root, extra)] = true
	}
	sc := &proposalScope{w: w}
	for d := range dirs {
		name := w.PackageName(d)
		if packages.ValidateName(name) != nil {
			continue
		}
		cur, err := w.State(head, d)
		if err != nil {
			return nil, err
		}
		prev, err := w.State(mb, d)
		if err != nil {
			return nil, err
		}
		pc := PackageChange{Name: name, Dir: d, Kind: core.KindOfLanding(cur, prev)}
		if pc.Kind == "" && name != extra {
			continue // a file outside any package's Kptfile history
		}
		if cur.Exists() {
			pc.Tree = cur.Tree.String()
		}
		if pc.Digest, err = contentDigest(w, head, d); err != nil {
			return nil, err
		}
		sc.pkgs = append(sc.pkgs, pc)
	}
	sort.Slice(sc.pkgs, func(i, j int) bool { return sc.pkgs[i].Name < sc.pkgs[j].Name })
	return sc, nil
}

// digestsAt are the content digests and tree ids of the scope's packages at
// commit (nil when the cache lacks it).
func (sc *proposalScope) digestsAt(commit plumbing.Hash) (digests, trees map[string]string, err error) {
	if _, err := sc.w.Commit(commit); errors.Is(err, core.ErrLandingCommitMissing) {
		return nil, nil, nil // unknown commit: no digests
	} else if err != nil {
		return nil, nil, err
	}
	digests, trees = map[string]string{}, map[string]string{}
	for _, p := range sc.pkgs {
		if digests[p.Name], err = contentDigest(sc.w, commit, p.Dir); err != nil {
			return nil, nil, err
		}
		st, err := sc.w.State(commit, p.Dir)
		if err != nil {
			return nil, nil, err
		}
		if st.Exists() {
			trees[p.Name] = st.Tree.String()
		}
	}
	return digests, trees, nil
}

// ProposalDigest combines the content digests of a proposal's packages
// (by package name) into one: "sha256:<hex>" of the sorted lines
// "<package>\x00<digest>\n". An approval carries over to a new head only
// when the proposal digest at the approved commit equals the head's.
func ProposalDigest(byPackage map[string]string) string {
	names := make([]string, 0, len(byPackage))
	for n := range byPackage {
		names = append(names, n)
	}
	sort.Strings(names)
	sum := sha256.New()
	for _, n := range names {
		fmt.Fprintf(sum, "%s\x00%s\n", n, byPackage[n])
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// PullRequestChanges lists the packages pr's head changes against its
// merge base with the deployment branch, fetching the head first when the
// cache lacks it (a branch of the repository, or a fork's
// refs/pull/N/head).
func PullRequestChanges(ctx context.Context, s *core.Session, pr hub.Pull) ([]PackageChange, error) {
	if err := EnsurePullRequestHead(ctx, s, pr); err != nil {
		return nil, err
	}
	return ProposalChanges(ctx, s, pr)
}

// EnsurePullRequestHead makes sure the cache has pr's head: a branch of
// the repository is fetched when it lacks it, a fork's head as
// refs/pull/N/head (EnsurePullHead).
func EnsurePullRequestHead(ctx context.Context, s *core.Session, pr hub.Pull) error {
	if rendercheck.IsForkPullRequest(s.Repo, pr) {
		_, err := rendercheck.EnsurePullHead(ctx, s, pr)
		return err
	}
	if err := EnsureCommit(ctx, s, strings.ToLower(pr.Head.SHA), branchOf(s, pr)); err != nil {
		return fmt.Errorf("pull request #%d: %w", pr.Number, err)
	}
	return nil
}

// ProposalChanges lists the packages pr's head changes against its merge
// base with the deployment branch (the head must be in the cache).
func ProposalChanges(ctx context.Context, s *core.Session, pr hub.Pull) ([]PackageChange, error) {
	base, err := ProposalBase(ctx, s, pr)
	if err != nil {
		return nil, err
	}
	head := plumbing.NewHash(strings.ToLower(pr.Head.SHA))
	var out []PackageChange
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		sc, err := newProposalScope(ctx, repo, s.Config.Packages.Root, base, head, "")
		if err != nil {
			return err
		}
		out = sc.pkgs
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("changes of #%d: %w", pr.Number, err)
	}
	return out, nil
}
