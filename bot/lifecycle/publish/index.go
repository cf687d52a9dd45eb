package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
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
	// Downstreams are the packages known to track each package (nil: the
	// session's DownstreamRegistry's, else those the index lists).
	Downstreams map[string][]index.Downstream
	// Unknown names the repositories whose downstreams the registry does
	// not know (index.Options.Unknown): the index keeps what it said of
	// them. Set with Downstreams from the session's registry.
	Unknown func(repository string) bool
	// Rollouts are the states of the packages' rollouts (nil: the
	// session's RolloutStates', else those the index says).
	Rollouts map[string]*index.Rollout
}

// UpdateIndex rebuilds index.yaml on the index branch and pushes it when it
// changed. It returns the branch head afterwards and whether it pushed.
func UpdateIndex(ctx context.Context, s *core.Session, u IndexUpdate) (plumbing.Hash, bool, error) {
	res, err := rebuildIndex(ctx, s, u)
	return res.head, res.pushed, err
}

// indexResult is what rebuildIndex did: the branch head afterwards, whether
// it pushed, and the index as it stands (nil when there is none).
type indexResult struct {
	head   plumbing.Hash
	pushed bool
	data   []byte
}

func rebuildIndex(ctx context.Context, s *core.Session, u IndexUpdate) (indexResult, error) {
	if u.Downstreams == nil && s.Downstreams != nil {
		u.Downstreams = IndexDownstreams(s, s.Downstreams.TrackingDownstreams(ctx, s))
		known := s.Downstreams.DownstreamsKnown
		u.Unknown = func(repo string) bool { return !known(repo) }
	}
	if u.Rollouts == nil && s.Rollouts != nil {
		u.Rollouts = s.Rollouts.RolloutStates(ctx, s)
	}
	branch := s.Config.Lifecycle.IndexBranch
	if branch == "" {
		branch = index.DefaultBranch
	}
	head, err := s.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitstore.ErrNotFound) {
		head = plumbing.ZeroHash
	} else if err != nil {
		return indexResult{}, fmt.Errorf("index: %w", err)
	}
	var built []byte
	res, err := s.CommitUnderLease(ctx, core.DefaultIdentity, branch, head, indexLeaseAttempts, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		data, changed, signed, err := buildIndex(ctx, s, head, u)
		built = data
		if err != nil || !changed && signed {
			return nil, err
		}
		// A head porchbot did not sign is replaced by a signed commit, even
		// one with the same index.
		return &core.PackageCommit{Parent: head, Dir: "", Files: map[string][]byte{index.FileName: data}, AllowEmpty: !signed,
			Message: revrecord.SignIndexMessage(s.SigningKey(), s.Repo.FullName(), data, indexMessage(u))}, nil
	})
	out := indexResult{head: res.Head, pushed: res.Pushed, data: built}
	if errors.Is(err, gitstore.ErrNoChanges) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("index: %w", err)
	}
	if res.Pushed {
		s.Log.WithField("ref", branch).WithField("head", res.Head.String()).Info("package index updated")
	}
	return out, nil
}

// buildIndex builds the index bytes on the index branch's head (ZeroHash:
// none yet) and says whether they differ from the index there and whether
// that head is porchbot's (signed). The index of a head porchbot did not
// sign is not read: the index is rebuilt from the tags porchbot published
// and the Kptfiles at their commits.
func buildIndex(ctx context.Context, s *core.Session, head plumbing.Hash, u IndexUpdate) (data []byte, changed, signed bool, err error) {
	var old []byte
	signed = true
	err = s.Git.With(ctx, func(r *git.Repository) error {
		var prev *index.Index
		if !head.IsZero() {
			var err error
			if old, signed, err = indexAt(s, r, head); err != nil {
				return err
			}
			if signed {
				prev, _ = index.Decode(old) // an unreadable index is rebuilt from scratch
			} else {
				s.Log.WithField("head", head.String()).Warn("the index branch's head is not porchbot's (no valid signature): ignored, the index is rebuilt from the revisions")
			}
		}
		extra := make([]index.Tag, 0, len(u.Published))
		for _, t := range u.Published {
			if t.Time.IsZero() {
				t.Time = PublishedTagTime(r, t)
			}
			extra = append(extra, t)
		}
		src, approvers, err := publishedIndexSource(s, r, extra, u.Approvers)
		if err != nil {
			return err
		}
		idx, err := index.Build(ctx, src, index.Options{Repository: s.Repo.FullName(), Root: s.Config.Packages.Root, Previous: prev,
			Approvers: approvers, Downstreams: u.Downstreams, Unknown: u.Unknown, Rollouts: u.Rollouts})
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
		return nil, false, true, err
	}
	return data, !bytes.Equal(data, old), signed, nil
}

// PublishedTagTime is the date the cache will read for a tag just made:
// the tagger's date of the annotated tag when this clone holds it (a
// revision porchbot signed is one), else the commit's committer date.
// Zero when neither can be read.
func PublishedTagTime(r *git.Repository, t index.Tag) time.Time {
	if ref, err := r.Reference(plumbing.NewTagReferenceName(packages.TagName(t.Package, t.Revision)), true); err == nil {
		if to, err := r.TagObject(ref.Hash()); err == nil && to.Target.String() == t.Commit {
			return to.Tagger.When
		}
	}
	if c, err := r.CommitObject(plumbing.NewHash(t.Commit)); err == nil {
		return c.Committer.When
	}
	return time.Time{}
}

// indexAt reads index.yaml at commit of the index branch (nil when it has
// none, or it is larger than index.MaxTreeBytes) and says whether porchbot
// signed the commit for it (revrecord.IndexSigned).
func indexAt(s *core.Session, r *git.Repository, commit plumbing.Hash) ([]byte, bool, error) {
	c, err := r.CommitObject(commit)
	if err != nil {
		return nil, false, fmt.Errorf("the index branch at %s: %w", commit, err)
	}
	f, err := c.File(index.FileName)
	if err != nil || f.Size > index.MaxTreeBytes {
		return nil, false, nil
	}
	text, err := f.Contents()
	if err != nil {
		return nil, false, nil
	}
	data := []byte(text)
	return data, revrecord.IndexSigned(s.SigningKey(), s.Repo.FullName(), data, c.Message), nil
}

// SignedIndexAt is the index at commit of the index branch when porchbot
// signed it (ok false: absent, unreadable or not porchbot's).
func SignedIndexAt(s *core.Session, r *git.Repository, commit plumbing.Hash) (*index.Index, bool, error) {
	data, signed, err := indexAt(s, r, commit)
	if err != nil || !signed || data == nil {
		return nil, false, err
	}
	idx, err := index.Decode(data)
	if err != nil {
		return nil, false, nil
	}
	return idx, true, nil
}

// IndexDownstreams sorts the downstream packages tracking packages of the
// session's repository by the package they track, keeping those any reader
// of the index may see named (downstreams.Downstream.NameableIn: packages
// of the same repository and of public repositories; a private
// repository's packages are not listed in another repository's index). A
// package naming itself is left out.
func IndexDownstreams(s *core.Session, ds []downstreams.Downstream) map[string][]index.Downstream {
	out := map[string][]index.Downstream{}
	root, self := packages.NormalizeRoot(s.Config.Packages.Root), s.Repo.FullName()
	for _, d := range ds {
		if !d.NameableIn(self) {
			continue
		}
		same := strings.EqualFold(d.Repo, self)
		pkg := downstreams.NormalizeDir(d.Upstream.Directory)
		if root != "" {
			var ok bool
			if pkg, ok = strings.CutPrefix(pkg, root+"/"); !ok {
				continue // not under packages.root: not a package of the index
			}
		}
		if pkg == "" || same && d.Package == pkg {
			continue
		}
		out[pkg] = append(out[pkg], index.Downstream{Repository: d.Repo, Package: d.Package, Revision: d.TrackedRevision(pkg)})
	}
	return out
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

// PublishedIndexSource is the index's view of the repository r (the
// session's cache): only the tags that are porchbot's revisions
// (revrecord.IsRevision), with the approvers their signed records name, by
// tag. A tag pushed by hand is in no index until it is adopted.
func PublishedIndexSource(s *core.Session, r *git.Repository) (index.Source, map[string][]string, error) {
	return publishedIndexSource(s, r, nil, nil)
}

// publishedIndexSource is PublishedIndexSource with extra tags (just
// published, possibly not in the cache yet) and their approvers.
func publishedIndexSource(s *core.Session, r *git.Repository, extra []index.Tag, approvers map[string][]string) (index.Source, map[string][]string, error) {
	tags, err := s.ReadLandingTags(r.Storer)
	if err != nil {
		return nil, nil, err
	}
	published := tags.Published()
	all := map[string][]string{}
	for name, rec := range published.Records {
		if len(rec.Approvers) > 0 {
			all[name] = rec.Approvers
		}
	}
	for name, a := range approvers {
		all[name] = a
	}
	return withTags{git: index.NewGitSource(r), extra: extra, published: published}, all, nil
}

// withTags is a Source whose tags are the published ones of the cache and
// ones the cache does not have yet.
type withTags struct {
	git       index.GitSource
	extra     []index.Tag
	published core.RevisionTags
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
	kept := tags[:0]
	for _, t := range tags {
		if _, ok := w.published.Record(t.Package, t.Revision); !ok {
			continue // not porchbot's revision: in no index
		}
		seen[packages.TagName(t.Package, t.Revision)] = true
		kept = append(kept, t)
	}
	tags = kept
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

// updateIndex records what this publish tagged in the package index and
// attaches the index to the releases it made. A failure is logged, not
// returned: the tags stand, and the resync rebuilds a stale index.
func (p *Publisher) updateIndex(ctx context.Context) {
	if len(p.out.Published) == 0 {
		return
	}
	if _, err := p.RecordIndex(ctx); err != nil {
		p.Log.WithError(err).Warn("package index not updated (the resync rebuilds it)")
	}
}

// RecordIndex updates the package index with what this run published and
// attaches it to the releases the run made (index_asset.go). It says
// whether it pushed the index branch.
func (p *Publisher) RecordIndex(ctx context.Context) (bool, error) {
	res, err := rebuildIndex(ctx, p.Session, p.indexUpdate())
	if res.data != nil {
		p.attachIndex(ctx, res.data)
	}
	return res.pushed, err
}

// indexUpdate is what this run published, for the index.
func (p *Publisher) indexUpdate() IndexUpdate {
	u := IndexUpdate{Approvers: map[string][]string{}}
	for _, r := range p.out.Published {
		u.Published = append(u.Published, index.Tag{Package: r.Package, Revision: r.Revision, Commit: r.Commit.String()})
		if len(r.Approvers) > 0 {
			u.Approvers[r.Tag] = r.Approvers
		}
	}
	return u
}
