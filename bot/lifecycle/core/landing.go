package core

// Landings: which packages a commit of the deployment branch changed, and
// which of those changes are not published yet. Pure reads of the git cache
// (no GitHub calls); publish.go decides what to tag.
//
// Decisions (documented here because publish and resync rely on them):
//
//   - Only top-level packages are published (Porch tags top-level packages;
//     a subpackage is part of its parent's revision). A change anywhere under
//     a top-level package's directory, subpackages included, is a change of
//     that package (packages.PackageOf's rule). The top-level package of a
//     changed file is the outermost directory under packages.root holding a
//     Kptfile in the commit or in its first parent, so a package removed by
//     the commit is still found. Packages with invalid names (they cannot
//     have tags) are ignored.
//   - A landing of package P is a commit C on the deployment branch's
//     first-parent history whose P (its Kptfile present or not, and its
//     directory tree) differs from C's first parent: a creation, a change or
//     a deletion. A merge commit that leaves P as its first parent had it is
//     not a landing, except the re-review merge below.
//   - Already tagged: some P/vN tag points at the commit. The first-parent
//     walk back from a commit stops at the first commit tagged for P (older
//     landings are settled), at P's creation (the parent has no P: older
//     history belongs to an earlier incarnation of a deleted package), after
//     MaxBackfill untagged landings, or after MaxLandingWalk commits. The
//     last two bounds only matter when a repository with an existing,
//     never-tagged history adopts porchbot: at most MaxBackfill of the most
//     recent landings of such a package are published, older ones stay
//     unpublished history.
//   - Superseded: when P's highest revision is tagged on a first-parent
//     descendant of the commit, nothing up to the commit may be tagged any
//     more (it would break "revision order = history order").
//   - Re-review merge: when a landing was not published because the merged
//     package differs from what was approved, the bot drafts the merged
//     state (publish.go). Merging that draft does not change P on the
//     deployment branch (it is already there), so such a merge is recorded
//     as a LandingReviewed candidate: a merge commit whose merged side
//     changed P (on its own first-parent commits, before reaching the
//     deployment branch) and whose result for P equals that side. It is
//     published only if P differs from what the previous published landing
//     left (publish.go).

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/porchbot/porchbot/internal/packages"
)

// Bounds of history walks.
const (
	// MaxLandingWalk bounds the first-parent commits one walk visits.
	MaxLandingWalk = 1000
	// MaxBackfill bounds the untagged landings of one package published
	// at once (oldest first).
	MaxBackfill = 20
	// maxSideWalk bounds the walk along a merged side branch looking for
	// its own change of a package (re-review merges).
	maxSideWalk = 64
)

// LandingKind says what a landing did to its package.
type LandingKind string

// Landing kinds.
const (
	LandingCreated  LandingKind = "created"
	LandingChanged  LandingKind = "changed"
	LandingDeleted  LandingKind = "deleted"
	LandingReviewed LandingKind = "reviewed" // a re-review merge, see the file comment
)

// Landing is one commit of the deployment branch's first-parent history
// that changed a top-level package.
type Landing struct {
	Package string
	// Dir is the package directory from the repository root.
	Dir    string
	Commit plumbing.Hash
	// Parent is the first parent (ZeroHash for a root commit).
	Parent plumbing.Hash
	// Merged are the other parents of a merge commit, and MergedTrees
	// the package's tree in each (ZeroHash where it has no package).
	Merged      []plumbing.Hash
	MergedTrees []plumbing.Hash
	// Tree is the package's tree at Commit, ParentTree at Parent
	// (ZeroHash where there is no package).
	Tree, ParentTree plumbing.Hash
	Kind             LandingKind
}

// IsMerge reports whether the landing is a merge commit.
func (l Landing) IsMerge() bool { return len(l.Merged) > 0 }

// PackageHistory is the unpublished part of a package's history up to a
// commit.
type PackageHistory struct {
	Package, Dir string
	UpTo         plumbing.Hash
	// Pending are the untagged landings after Base, oldest first.
	Pending []Landing
	// Base is where the walk stopped: a commit tagged BaseRevision, the
	// commit before the package's creation (ZeroHash before a root
	// commit), or the walk's bound. BaseTree is the package tree there.
	Base         plumbing.Hash
	BaseRevision int
	BaseTree     plumbing.Hash
	// TaggedAt is the highest revision tagged on UpTo itself (0: none).
	TaggedAt int
	// Latest is the package's highest revision and LatestCommit its commit.
	Latest       int
	LatestCommit plumbing.Hash
	// Superseded: Latest is tagged on a first-parent descendant of UpTo.
	Superseded bool
	// Truncated: the walk stopped at MaxBackfill or MaxLandingWalk.
	Truncated bool
}

// PackageDir is the directory of package name under packages.root.
func PackageDir(root, name string) string {
	root = packages.NormalizeRoot(root)
	if root == "" {
		return name
	}
	return root + "/" + name
}

// ErrLandingCommitMissing reports a commit absent from the cache.
var ErrLandingCommitMissing = errors.New("commit not in the git cache")

// LandingState is a package at a commit: Tree is its directory's tree when a
// Kptfile is there, ZeroHash otherwise.
type LandingState struct{ Tree plumbing.Hash }

func (p LandingState) Exists() bool { return !p.Tree.IsZero() }

type landingStateKey struct {
	commit plumbing.Hash
	dir    string
}

// LandingWalker reads commits and package states from a repository with
// memoisation. It is used under Cache.With only: its commits are bound to
// the repository it was made on. What it finds that is only hashes (the
// package states, the directories a commit changed) it keeps in its
// LandingMemo, which may outlive it (a session's: Session.Walker).
type LandingWalker struct {
	Ctx     context.Context
	Storer  storer.EncodedObjectStorer
	root    string
	commits map[plumbing.Hash]*object.Commit
	memo    *LandingMemo
}

// NewLandingWalker is a walker of repo with a memo of its own.
func NewLandingWalker(ctx context.Context, repo *git.Repository, root string) *LandingWalker {
	return newLandingWalker(ctx, repo, root, &LandingMemo{})
}

func newLandingWalker(ctx context.Context, repo *git.Repository, root string, memo *LandingMemo) *LandingWalker {
	return &LandingWalker{Ctx: ctx, Storer: repo.Storer, root: packages.NormalizeRoot(root),
		commits: map[plumbing.Hash]*object.Commit{}, memo: memo}
}

// Walker is a landing walker of repo (the session's cache, under
// s.Git.With) over the session's packages root, sharing the session's
// memo (the process's Facts): each package state and each commit's changed
// packages is found once (snapshot.go).
func (s *Session) Walker(ctx context.Context, repo *git.Repository) *LandingWalker {
	return newLandingWalker(ctx, repo, s.Config.Packages.Root, &s.snap.shared().landings)
}

func (w *LandingWalker) Commit(h plumbing.Hash) (*object.Commit, error) {
	if c, ok := w.commits[h]; ok {
		return c, nil
	}
	c, err := object.GetCommit(w.Storer, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("%s: %w", h, ErrLandingCommitMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", h, err)
	}
	w.commits[h] = c
	return c, nil
}

func LandingFirstParent(c *object.Commit) plumbing.Hash {
	if len(c.ParentHashes) == 0 {
		return plumbing.ZeroHash
	}
	return c.ParentHashes[0]
}

// RootTree is the tree of commit h (nil for ZeroHash).
func (w *LandingWalker) RootTree(h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return nil, nil
	}
	c, err := w.Commit(h)
	if err != nil {
		return nil, err
	}
	t, err := object.GetTree(w.Storer, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", h, err)
	}
	return t, nil
}

// entryAt finds the entry at a slash path below t (nil: absent).
func (w *LandingWalker) entryAt(t *object.Tree, p string) (*object.TreeEntry, error) {
	if t == nil {
		return nil, nil
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		var found *object.TreeEntry
		for j := range t.Entries {
			if t.Entries[j].Name == seg {
				found = &t.Entries[j]
				break
			}
		}
		if found == nil || i == len(segs)-1 {
			return found, nil
		}
		if found.Mode != filemode.Dir {
			return nil, nil
		}
		sub, err := object.GetTree(w.Storer, found.Hash)
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", strings.Join(segs[:i+1], "/"), err)
		}
		t = sub
	}
	return nil, nil
}

// State is the package in dir at commit h (absent for ZeroHash).
func (w *LandingWalker) State(h plumbing.Hash, dir string) (LandingState, error) {
	if h.IsZero() {
		return LandingState{}, nil
	}
	key := landingStateKey{h, dir}
	if st, ok := w.memo.state(key); ok {
		return st, nil
	}
	t, err := w.RootTree(h)
	if err != nil {
		return LandingState{}, err
	}
	var st LandingState
	e, err := w.entryAt(t, dir)
	if err != nil {
		return LandingState{}, err
	}
	if e != nil && e.Mode == filemode.Dir {
		k, err := w.entryAt(t, dir+"/"+packages.KptfileName)
		if err != nil {
			return LandingState{}, err
		}
		if k != nil && k.Mode != filemode.Dir {
			st.Tree = e.Hash
		}
	}
	w.memo.keepState(key, st)
	return st, nil
}

// hasKptfile reports whether dir/Kptfile is a file in t.
func (w *LandingWalker) hasKptfile(t *object.Tree, dir string) (bool, error) {
	e, err := w.entryAt(t, dir+"/"+packages.KptfileName)
	return e != nil && e.Mode != filemode.Dir, err
}

// topLevelDir is the outermost directory above file (a repository path)
// under root that holds a Kptfile in a or b: the top-level package the
// file belongs to.
func (w *LandingWalker) topLevelDir(file string, a, b *object.Tree, memo map[string]bool) (string, bool, error) {
	dir := path.Dir(file)
	if dir == "." {
		return "", false, nil
	}
	segs := strings.Split(dir, "/")
	start := 1
	if w.root != "" {
		if !strings.HasPrefix(dir+"/", w.root+"/") || dir == w.root {
			return "", false, nil
		}
		start = len(strings.Split(w.root, "/")) + 1
	}
	for i := start; i <= len(segs); i++ {
		d := strings.Join(segs[:i], "/")
		has, ok := memo[d]
		if !ok {
			inA, err := w.hasKptfile(a, d)
			if err != nil {
				return "", false, err
			}
			inB := false
			if !inA {
				if inB, err = w.hasKptfile(b, d); err != nil {
					return "", false, err
				}
			}
			has = inA || inB
			memo[d] = has
		}
		if has {
			return d, true, nil
		}
	}
	return "", false, nil
}

// PackageName is dir's package name under root.
func (w *LandingWalker) PackageName(dir string) string {
	if w.root == "" {
		return dir
	}
	return strings.TrimPrefix(dir, w.root+"/")
}

// KindOfLanding is what going from prev to cur did to a package ("": nothing).
func KindOfLanding(cur, prev LandingState) LandingKind {
	switch {
	case cur == prev:
		return ""
	case !prev.Exists():
		return LandingCreated
	case !cur.Exists():
		return LandingDeleted
	}
	return LandingChanged
}

// landingOf describes commit c's change of the package in dir, given its
// states; kind is "" when the package did not change.
func (w *LandingWalker) landingOf(c *object.Commit, name, dir string, cur, prev LandingState) (Landing, error) {
	l := Landing{Package: name, Dir: dir, Commit: c.Hash, Parent: LandingFirstParent(c), Tree: cur.Tree, ParentTree: prev.Tree,
		Kind: KindOfLanding(cur, prev)}
	for _, p := range c.ParentHashes[min(1, len(c.ParentHashes)):] {
		st, err := w.State(p, dir)
		if err != nil {
			return l, err
		}
		l.Merged = append(l.Merged, p)
		l.MergedTrees = append(l.MergedTrees, st.Tree)
	}
	return l, nil
}

// changed lists the top-level packages commit h changed against its first
// parent, sorted by name.
func (w *LandingWalker) changed(h plumbing.Hash) ([]Landing, error) {
	c, err := w.Commit(h)
	if err != nil {
		return nil, err
	}
	parent := LandingFirstParent(c)
	b, err := w.RootTree(h)
	if err != nil {
		return nil, err
	}
	a, err := w.RootTree(parent)
	if err != nil {
		return nil, err
	}
	dirs, err := w.ChangedDirs(a, b)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", h, err)
	}
	var out []Landing
	for d := range dirs {
		name := w.PackageName(d)
		if packages.ValidateName(name) != nil {
			continue
		}
		cur, err := w.State(h, d)
		if err != nil {
			return nil, err
		}
		prev, err := w.State(parent, d)
		if err != nil {
			return nil, err
		}
		l, err := w.landingOf(c, name, d, cur, prev)
		if err != nil {
			return nil, err
		}
		if l.Kind != "" {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out, nil
}

// ChangedDirs lists the top-level package directories holding a file
// that differs between trees a and b (either may be nil).
func (w *LandingWalker) ChangedDirs(a, b *object.Tree) (map[string]bool, error) {
	key := changedKey{treeHash(a), treeHash(b), w.root}
	if dirs, ok := w.memo.changedDirs(key); ok {
		return dirs, nil
	}
	dirs, err := w.changedDirs(a, b)
	if err != nil {
		return nil, err
	}
	w.memo.keepChangedDirs(key, dirs)
	return dirs, nil
}

// treeHash is t's id (zero for none).
func treeHash(t *object.Tree) plumbing.Hash {
	if t == nil {
		return plumbing.ZeroHash
	}
	return t.Hash
}

func (w *LandingWalker) changedDirs(a, b *object.Tree) (map[string]bool, error) {
	changes, err := object.DiffTreeWithOptions(w.Ctx, a, b, nil)
	if err != nil {
		return nil, err
	}
	memo := map[string]bool{}
	dirs := map[string]bool{}
	for _, ch := range changes {
		for _, name := range []string{ch.From.Name, ch.To.Name} {
			if name == "" {
				continue
			}
			d, ok, err := w.topLevelDir(name, b, a, memo)
			if err != nil {
				return nil, err
			}
			if ok {
				dirs[d] = true
			}
		}
	}
	return dirs, nil
}

// IsFirstParentAncestor reports whether anc is on the first-parent chain
// of head (head itself included), within MaxLandingWalk commits.
func (w *LandingWalker) IsFirstParentAncestor(anc, head plumbing.Hash) (bool, error) {
	x := head
	for range MaxLandingWalk {
		if x == anc {
			return true, nil
		}
		if x.IsZero() {
			return false, nil
		}
		c, err := w.Commit(x)
		if err != nil {
			return false, err
		}
		x = LandingFirstParent(c)
	}
	return false, nil
}
