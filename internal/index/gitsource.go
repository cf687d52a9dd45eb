package index

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// Bounds of a package tree read for the index.
const (
	MaxTreeFiles       = gitstore.DefaultMaxTreeFiles
	MaxTreeBytes int64 = gitstore.DefaultMaxTreeBytes
)

// GitSource reads a go-git repository (a checkout, a bare clone, or one in
// memory).
type GitSource struct {
	Repo *git.Repository
	// branch is the index branch Previous reads (DefaultBranch when "").
	branch string
}

// NewGitSource reads repo.
func NewGitSource(repo *git.Repository) GitSource { return GitSource{Repo: repo} }

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

// TreeID is git's hash of dir's tree at commit ("" when it does not exist).
func (g GitSource) TreeID(_ context.Context, commit, dir string) (string, error) {
	h, err := gitstore.TreeHashIn(g.Repo.Storer, plumbing.NewHash(commit), strings.Trim(dir, "/"))
	if errors.Is(err, gitstore.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// TreeByID reads the files of a tree TreeID named.
func (g GitSource) TreeByID(ctx context.Context, id string) (map[string][]byte, error) {
	files, err := gitstore.ReadTreeObject(ctx, g.Repo.Storer, plumbing.NewHash(id), MaxTreeFiles, MaxTreeBytes)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", id, err)
	}
	return files, nil
}

// Tree reads dir's files at commit (gitstore's bounded reader, within
// MaxTreeFiles and MaxTreeBytes); a directory that does not exist there is
// an empty tree.
func (g GitSource) Tree(ctx context.Context, commit, dir string) (map[string][]byte, error) {
	files, err := gitstore.ReadTreeIn(ctx, g.Repo.Storer, plumbing.NewHash(commit), strings.Trim(dir, "/"), MaxTreeFiles, MaxTreeBytes)
	if errors.Is(err, gitstore.ErrNotFound) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", dir, commit, err)
	}
	return files, nil
}
