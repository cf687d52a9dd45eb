package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// Making a revision: the tag (its creation is the compare-and-swap) and the
// GitHub release with its notes.

var errPublishTagExists = errors.New("tag already exists")

// createTag creates refs/tags/<pkg>/v<n> on commit: the compare-and-swap.
func (p *publisher) createTag(ctx context.Context, pkg string, n int, commit plumbing.Hash) error {
	owner, repo := p.owner()
	ref := packages.TagRef(pkg, n)
	_, _, err := p.api.Git.CreateRef(ctx, owner, repo, &github.Reference{Ref: github.String(ref),
		Object: &github.GitObject{SHA: github.String(commit.String())}})
	if err == nil {
		// Mirror the new tag in the cache, so this session's later
		// decisions see it without a fetch (a fetch sets the same value).
		werr := p.s.Git.With(ctx, func(repo *git.Repository) error {
			return repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(ref), commit))
		})
		if werr != nil {
			p.log.WithError(werr).WithField("tag", ref).Warn("could not record the new tag in the git cache")
		}
		return nil
	}
	if publishAlreadyExists(err) {
		return fmt.Errorf("%s: %w", ref, errPublishTagExists)
	}
	return fmt.Errorf("create tag %s on %s: %w", ref, commit, err)
}

// publishAlreadyExists recognises GitHub's 422 for an existing ref or release.
func publishAlreadyExists(err error) bool {
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response == nil || ge.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	if strings.Contains(strings.ToLower(ge.Message), "already exists") {
		return true
	}
	for _, e := range ge.Errors {
		if e.Code == "already_exists" {
			return true
		}
	}
	return false
}

// release creates the GitHub release of revision n.
func (p *publisher) release(ctx context.Context, tags RevisionTags, l Landing, n int, v landingVerdict) (*github.RepositoryRelease, error) {
	notes, err := p.releaseNotes(ctx, tags, l.Package, l.Dir, l.Commit, n, v)
	if err != nil {
		return nil, err
	}
	tag := packages.TagName(l.Package, n)
	owner, repo := p.owner()
	rel, _, err := p.api.Releases.CreateRelease(ctx, owner, repo, &github.RepositoryRelease{
		TagName: github.String(tag), Name: github.String(tag), Body: github.String(notes.Markdown()),
		TargetCommitish: github.String(l.Commit.String())})
	if err != nil {
		if publishAlreadyExists(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("create release %s: %w", tag, err)
	}
	return rel, nil
}

// releaseNotes gathers the notes of revision n of pkg at commit.
func (p *publisher) releaseNotes(ctx context.Context, tags RevisionTags, pkg, dir string, commit plumbing.Hash, n int, v landingVerdict) (ReleaseNotes, error) {
	pr := v.pr
	notes := ReleaseNotes{Package: pkg, Revision: n, Tag: packages.TagName(pkg, n), Commit: commit.String(), PR: relNotesPR(pr)}
	files, err := p.s.Git.ReadTree(ctx, commit, dir)
	if err != nil {
		return notes, fmt.Errorf("read %s at %s: %w", dir, commit, err)
	}
	var old map[string][]byte
	if prev, ok := tags.Commit(pkg, n-1); ok {
		notes.PreviousTag = packages.TagName(pkg, n-1)
		old, err = p.s.Git.ReadTree(ctx, prev, dir)
		if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
			return notes, fmt.Errorf("read %s at %s: %w", dir, prev, err)
		}
	}
	notes.Files = DiffPackageFiles(old, files)
	notes.Resources = DiffResources(old, files)
	switch {
	case v.approvers != nil:
		// Exactly the approvals that covered the published tree.
		notes.Approvers = v.approvers
	case pr != nil:
		owner, repo := p.owner()
		reviews, _, err := p.api.Pulls.ListReviews(ctx, owner, repo, pr.GetNumber(), &github.ListOptions{PerPage: 100})
		if err != nil {
			return notes, fmt.Errorf("reviews of #%d: %w", pr.GetNumber(), err)
		}
		notes.Approvers = ApproversFromReviews(reviews, pr.GetUser().GetLogin(), p.s.Config.Approvals.AllowSelfApproval)
	}
	return notes, nil
}
