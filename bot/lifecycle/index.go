package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/packages"
)

// The package index (SPEC §8, docs/index.md) lives on a branch of its own,
// lifecycle.indexBranch (porch/index), holding one file, index.yaml: never on the deployment
// branch (no noise in its history, no fight with branch protection). It is
// built from the git cache alone (tags and package trees), with the
// previous index reused for the revisions it already lists, and pushed
// under a lease on the branch's head: a replica that lost the race builds
// again on the winner's index. No REST call.

// indexLeaseAttempts bounds the rebuilds when the branch keeps moving.
const indexLeaseAttempts = 5

// IndexUpdate is what UpdateIndex adds to what the cache knows: tags made
// through the API a moment ago (the cache has them only at its next
// fetch), and the approvers of revisions (not in git).
type IndexUpdate struct {
	Published []index.Tag
	Approvers map[string][]string // tag → approvers
	// Downstreams are the packages known to track each package.
	Downstreams map[string][]index.Downstream
}

// UpdateIndex rebuilds index.yaml on the index branch and pushes it when it
// changed. It returns the branch head afterwards and whether it pushed.
func UpdateIndex(ctx context.Context, s *Session, u IndexUpdate) (plumbing.Hash, bool, error) {
	branch := s.Config.Lifecycle.IndexBranch
	if branch == "" {
		branch = index.DefaultBranch
	}
	head, err := s.Git.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitstore.ErrNotFound) {
		head = plumbing.ZeroHash
	} else if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("index: %w", err)
	}
	res, err := s.CommitUnderLease(ctx, DefaultIdentity, branch, head, indexLeaseAttempts, func(ctx context.Context, head plumbing.Hash) (*PackageCommit, error) {
		data, changed, err := buildIndex(ctx, s, head, u)
		if err != nil || !changed {
			return nil, err
		}
		return &PackageCommit{Parent: head, Dir: "", Files: map[string][]byte{index.FileName: data},
			Message: indexMessage(u)}, nil
	})
	if errors.Is(err, gitstore.ErrNoChanges) {
		return res.Head, false, nil
	}
	if err != nil {
		return res.Head, false, fmt.Errorf("index: %w", err)
	}
	if res.Pushed {
		s.Log.WithField("ref", branch).WithField("head", res.Head.String()).Info("package index updated")
	}
	return res.Head, res.Pushed, nil
}

// buildIndex builds the index bytes on the index branch's head (ZeroHash:
// none yet) and says whether they differ from the index there.
func buildIndex(ctx context.Context, s *Session, head plumbing.Hash, u IndexUpdate) ([]byte, bool, error) {
	var data, old []byte
	err := s.Git.With(ctx, func(r *git.Repository) error {
		var prev *index.Index
		if !head.IsZero() {
			c, err := r.CommitObject(head)
			if err != nil {
				return fmt.Errorf("the index branch at %s: %w", head, err)
			}
			if f, err := c.File(index.FileName); err == nil {
				if text, err := f.Contents(); err == nil {
					old = []byte(text)
					prev, _ = index.Decode(old) // an unreadable index is rebuilt from scratch
				}
			}
		}
		extra := make([]index.Tag, 0, len(u.Published))
		for _, t := range u.Published {
			if t.Time.IsZero() { // a lightweight tag: the commit's date, as the cache will read it
				if c, err := r.CommitObject(plumbing.NewHash(t.Commit)); err == nil {
					t.Time = c.Committer.When
				}
			}
			extra = append(extra, t)
		}
		src := withTags{git: index.NewGitSource(r), extra: extra}
		idx, err := index.Build(ctx, src, index.Options{Repository: s.Repo.FullName(), Root: s.Config.Packages.Root, Previous: prev,
			Approvers: u.Approvers, Downstreams: u.Downstreams})
		if err != nil {
			return err
		}
		if head.IsZero() && len(idx.Packages) == 0 {
			return nil // nothing published yet: no branch until there is
		}
		data, err = index.Encode(idx)
		return err
	})
	if err != nil || data == nil {
		return nil, false, err
	}
	return data, !bytes.Equal(data, old), nil
}

func indexMessage(u IndexUpdate) string {
	if len(u.Published) == 0 {
		return "Index: rebuild"
	}
	var tags []string
	for _, t := range u.Published {
		tags = append(tags, packages.TagName(t.Package, t.Revision))
	}
	return "Index: " + strings.Join(tags, ", ")
}

// withTags is a Source whose tags include ones the cache does not have yet.
type withTags struct {
	git   index.GitSource
	extra []index.Tag
}

func (w withTags) Tree(ctx context.Context, commit, dir string) (map[string][]byte, error) {
	return w.git.Tree(ctx, commit, dir)
}

func (w withTags) Tags(ctx context.Context) ([]index.Tag, error) {
	tags, err := w.git.Tags(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range tags {
		seen[packages.TagName(t.Package, t.Revision)] = true
	}
	for _, t := range w.extra {
		if !seen[packages.TagName(t.Package, t.Revision)] {
			tags = append(tags, t)
		}
	}
	return tags, nil
}

// TreeID and TreeByID keep the underlying source's tree memo working
// through the wrapper.
func (w withTags) TreeID(ctx context.Context, commit, dir string) (string, error) {
	return w.git.TreeID(ctx, commit, dir)
}

func (w withTags) TreeByID(ctx context.Context, id string) (map[string][]byte, error) {
	return w.git.TreeByID(ctx, id)
}

// updateIndex records what this publish tagged in the package index. A
// failure is logged, not returned: the tags stand, and the resync rebuilds
// a stale index.
func (p *publisher) updateIndex(ctx context.Context) {
	if len(p.out.Published) == 0 {
		return
	}
	if _, _, err := UpdateIndex(ctx, p.s, p.indexUpdate()); err != nil {
		p.log.WithError(err).Warn("package index not updated (the resync rebuilds it)")
	}
}

// indexUpdate is what this run published, for the index.
func (p *publisher) indexUpdate() IndexUpdate {
	u := IndexUpdate{Approvers: map[string][]string{}}
	for _, r := range p.out.Published {
		u.Published = append(u.Published, index.Tag{Package: r.Package, Revision: r.Revision, Commit: r.Commit.String()})
		if len(r.Approvers) > 0 {
			u.Approvers[r.Tag] = r.Approvers
		}
	}
	return u
}
