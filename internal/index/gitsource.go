package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/packages"
)

// Bounds of a package tree read for the index.
const (
	MaxTreeFiles = 10_000
	MaxTreeBytes = 256 << 20
)

// GitSource reads a go-git repository (a checkout, a bare clone, or one in
// memory).
type GitSource struct {
	Repo *git.Repository
	// last is the directory tree TreeID found, which the Tree call for
	// the same commit and directory that follows on a cache miss reuses.
	last *lastTree
	// branch is the index branch Previous reads (DefaultBranch when "").
	branch string
}

type lastTree struct {
	commit, dir string
	tree        *object.Tree
}

// NewGitSource reads repo.
func NewGitSource(repo *git.Repository) GitSource { return GitSource{Repo: repo, last: &lastTree{}} }

// Tags lists the tags <package>/v<N>, peeled to their commits.
func (g GitSource) Tags(ctx context.Context) ([]Tag, error) {
	refs, err := g.Repo.Tags()
	if err != nil {
		return nil, err
	}
	var out []Tag
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		pkg, rev, ok := packages.ParseTag(ref.Name().String())
		if !ok {
			return nil
		}
		t := Tag{Package: pkg, Revision: rev}
		h := ref.Hash()
		if to, err := g.Repo.TagObject(h); err == nil {
			t.Time = to.Tagger.When
			c, err := to.Commit()
			if err != nil {
				return fmt.Errorf("tag %s: %w", ref.Name().Short(), err)
			}
			h = c.Hash
		} else if !errors.Is(err, plumbing.ErrObjectNotFound) {
			return fmt.Errorf("tag %s: %w", ref.Name().Short(), err)
		}
		c, err := g.Repo.CommitObject(h)
		if err != nil {
			return fmt.Errorf("tag %s: %w", ref.Name().Short(), err)
		}
		if t.Time.IsZero() {
			t.Time = c.Committer.When
		}
		t.Commit = c.Hash.String()
		out = append(out, t)
		return nil
	})
	return out, err
}

// dirTree is the tree of dir at commit (nil when dir does not exist there).
func (g GitSource) dirTree(commit, dir string) (*object.Tree, error) {
	if g.last != nil && g.last.tree != nil && g.last.commit == commit && g.last.dir == dir {
		return g.last.tree, nil
	}
	t, err := g.findDirTree(commit, dir)
	if g.last != nil && err == nil {
		*g.last = lastTree{commit: commit, dir: dir, tree: t}
	}
	return t, err
}

func (g GitSource) findDirTree(commit, dir string) (*object.Tree, error) {
	c, err := g.Repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	root, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	dir = strings.Trim(dir, "/")
	if dir == "" || dir == "." {
		return root, nil
	}
	t, err := root.Tree(dir)
	if errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	return t, err
}

// TreeID is git's hash of dir's tree at commit ("" when it does not exist).
func (g GitSource) TreeID(_ context.Context, commit, dir string) (string, error) {
	t, err := g.dirTree(commit, dir)
	if err != nil || t == nil {
		return "", err
	}
	return t.Hash.String(), nil
}

// Tree reads dir's files at commit, bounded by MaxTreeFiles and MaxTreeBytes.
func (g GitSource) Tree(ctx context.Context, commit, dir string) (map[string][]byte, error) {
	t, err := g.dirTree(commit, dir)
	if err != nil || t == nil {
		return map[string][]byte{}, err
	}
	out := map[string][]byte{}
	total := 0
	err = t.Files().ForEach(func(f *object.File) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(out) == MaxTreeFiles {
			return fmt.Errorf("%s at %s has more than %d files", dir, commit, MaxTreeFiles)
		}
		if total += int(f.Size); total > MaxTreeBytes {
			return fmt.Errorf("%s at %s holds more than %d bytes", dir, commit, MaxTreeBytes)
		}
		r, err := f.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		out[f.Name] = data
		return nil
	})
	return out, err
}
