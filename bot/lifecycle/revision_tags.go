package lifecycle

import (
	"context"
	"fmt"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// Revision tags <package>/v<N> as read from a repository's git cache.

// RevisionTags are the revision tags of a repository's cache, by package.
type RevisionTags struct {
	byPkg map[string]map[int]plumbing.Hash
	// at is the highest revision of a package on a commit.
	at map[string]map[plumbing.Hash]int
}

// Revisions lists pkg's revisions, ascending.
func (t RevisionTags) Revisions(pkg string) []int {
	revs := make([]int, 0, len(t.byPkg[pkg]))
	for n := range t.byPkg[pkg] {
		revs = append(revs, n)
	}
	sort.Ints(revs)
	return revs
}

// Latest is pkg's highest revision and its commit (0 and ZeroHash: none).
func (t RevisionTags) Latest(pkg string) (int, plumbing.Hash) {
	n := packages.Latest(t.Revisions(pkg))
	return n, t.byPkg[pkg][n]
}

// Commit is the commit revision n of pkg is tagged on.
func (t RevisionTags) Commit(pkg string, n int) (plumbing.Hash, bool) {
	h, ok := t.byPkg[pkg][n]
	return h, ok
}

// At is the highest revision of pkg tagged on commit (0: none).
func (t RevisionTags) At(pkg string, commit plumbing.Hash) int { return t.at[pkg][commit] }

// Packages lists the packages with at least one revision, sorted.
func (t RevisionTags) Packages() []string {
	out := make([]string, 0, len(t.byPkg))
	for p := range t.byPkg {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (t *RevisionTags) add(pkg string, n int, commit plumbing.Hash) {
	if t.byPkg == nil {
		t.byPkg, t.at = map[string]map[int]plumbing.Hash{}, map[string]map[plumbing.Hash]int{}
	}
	if t.byPkg[pkg] == nil {
		t.byPkg[pkg], t.at[pkg] = map[int]plumbing.Hash{}, map[plumbing.Hash]int{}
	}
	t.byPkg[pkg][n] = commit
	t.at[pkg][commit] = max(t.at[pkg][commit], n)
}

// ReadRevisionTags reads every <pkg>/v<N> tag of the cache, peeled to
// its commit.
func ReadRevisionTags(ctx context.Context, cache *gitstore.Cache) (RevisionTags, error) {
	var tags RevisionTags
	err := cache.With(ctx, func(repo *git.Repository) error {
		var err error
		tags, err = readLandingTags(repo.Storer)
		return err
	})
	if err != nil {
		return RevisionTags{}, fmt.Errorf("read revision tags of %s: %w", cache.Name(), err)
	}
	return tags, nil
}

func readLandingTags(s storer.Storer) (RevisionTags, error) {
	var tags RevisionTags
	iter, err := s.IterReferences()
	if err != nil {
		return tags, err
	}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference || !ref.Name().IsTag() {
			return nil
		}
		pkg, n, ok := packages.ParseTag(ref.Name().String())
		if !ok {
			return nil
		}
		h, err := gitstore.PeelToCommit(s, ref.Hash())
		if err != nil {
			return nil // a tag of something that is not a commit is no revision
		}
		tags.add(pkg, n, h)
		return nil
	})
	return tags, err
}
