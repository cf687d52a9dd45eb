package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
	"github.com/porchbot/porchbot/internal/treediff"
)

// Making a revision: the tag (its creation is the compare-and-swap) and the
// GitHub release with its notes.

var errPublishTagExists = errors.New("tag already exists")

// createTag creates refs/tags/<pkg>/v<n> on commit: the compare-and-swap.
// The tag is porchbot's annotated tag carrying rec, signed (revision_sign.go),
// pushed over git with the zero old value: no REST call, and a tag that
// already exists (another replica's, or a person's) refuses the push.
func (p *Publisher) createTag(ctx context.Context, rec revrecord.Record) error {
	err := pushRevisionTag(ctx, p.Session, rec, plumbing.ZeroHash)
	if errors.Is(err, gitstore.ErrLeaseBroken) {
		return fmt.Errorf("%s: %w", packages.TagName(rec.Package, rec.Revision), errPublishTagExists)
	}
	return err
}

// PublishAlreadyExists recognises GitHub's 422 for an existing ref or release.
func PublishAlreadyExists(err error) bool {
	var he *hub.Error
	if !errors.As(err, &he) || he.Status != http.StatusUnprocessableEntity {
		return false
	}
	return strings.Contains(strings.ToLower(he.Message), "already exists") || slices.Contains(he.Codes, "already_exists")
}

// Release creates the GitHub release of revision n.
func (p *Publisher) Release(ctx context.Context, tags core.RevisionTags, l core.Landing, n int, v LandingVerdict) (*hub.Release, error) {
	notes, err := p.releaseNotes(ctx, tags, l.Package, l.Dir, l.Commit, n, v)
	if err != nil {
		return nil, err
	}
	tag := packages.TagName(l.Package, n)
	owner, repo := p.Owner()
	rel, err := p.API.Releases.CreateRelease(ctx, owner, repo, hub.Release{
		TagName: tag, Name: tag, Body: notes.Markdown(),
		TargetCommitish: l.Commit.String()})
	if err != nil {
		if PublishAlreadyExists(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("create release %s: %w", tag, err)
	}
	return &rel, nil
}

// releaseNotes gathers the notes of revision n of pkg at commit.
func (p *Publisher) releaseNotes(ctx context.Context, tags core.RevisionTags, pkg, dir string, commit plumbing.Hash, n int, v LandingVerdict) (ReleaseNotes, error) {
	pr := v.PR
	notes := ReleaseNotes{Package: pkg, Revision: n, Tag: packages.TagName(pkg, n), Commit: commit.String(), PR: relNotesPR(pr),
		Adopted: v.adopted}
	if notes.PR != nil && v.requester != "" {
		notes.PR.Author = v.requester // a proposal porchbot opened credits who asked for it
	}
	files, err := p.Session.Git.ReadTree(ctx, commit, dir)
	if err != nil {
		return notes, fmt.Errorf("read %s at %s: %w", dir, commit, err)
	}
	var old map[string][]byte
	if prev, ok := tags.Commit(pkg, n-1); ok {
		notes.PreviousTag = packages.TagName(pkg, n-1)
		old, err = p.Session.Git.ReadTree(ctx, prev, dir)
		if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
			return notes, fmt.Errorf("read %s at %s: %w", dir, prev, err)
		}
	}
	notes.Files = treediff.Files(old, files)
	notes.Resources = DiffResources(old, files)
	switch {
	case v.approvers != nil:
		// Exactly the approvals that covered the published tree.
		notes.Approvers = v.approvers
	case pr != nil:
		owner, repo := p.Owner()
		reviews, _, err := p.API.Pulls.ListReviews(ctx, owner, repo, pr.Number, hub.Page{PerPage: 100})
		if err != nil {
			return notes, fmt.Errorf("reviews of #%d: %w", pr.Number, err)
		}
		notes.Approvers = ApproversFromReviews(reviews, pr.User.Login, p.Session.Config.Approvals.AllowSelfApproval)
	}
	return notes, nil
}
