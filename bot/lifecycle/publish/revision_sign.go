package publish

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
)

// Making porchbot's revision tags: an annotated tag whose message carries
// the signed record of the revision (internal/revrecord), pushed over git
// under a lease on the tag ref (the zero value to create it; the tag's
// current value to adopt one a person pushed). No REST call.

// revisionRecord is the record of revision n of landing l, published on
// verdict v.
func (p *Publisher) revisionRecord(l core.Landing, n int, v LandingVerdict) revrecord.Record {
	rec := revrecord.Record{Repo: p.Session.Repo.FullName(), Package: l.Package, Revision: n, Commit: l.Commit.String(),
		Approvers: v.approvers, PR: v.PRNumber()}
	if p.approvedBy != "" && l.Commit == p.approveCommit {
		rec.By = p.approvedBy
	}
	return rec
}

// pushRevisionTag signs rec, writes its annotated tag on rec.Commit and
// sets the tag ref to it if, and only if, the ref is at lease (ZeroHash:
// it must not exist). A moved ref wraps gitstore.ErrLeaseBroken.
func pushRevisionTag(ctx context.Context, s *core.Session, rec revrecord.Record, lease plumbing.Hash) error {
	rec = revrecord.Sign(s.SigningKey(), rec)
	name := packages.TagName(rec.Package, rec.Revision)
	obj, err := s.Git.WriteTag(ctx, gitstore.TagRequest{Name: name, Target: plumbing.NewHash(rec.Commit),
		Tagger: object.Signature{Name: core.DefaultIdentity.Name, Email: core.DefaultIdentity.Email}, Message: revrecord.Message(rec)})
	if err != nil {
		return fmt.Errorf("tag %s: %w", name, err)
	}
	err = s.Git.Push(ctx, gitstore.PushRequest{Ref: plumbing.ReferenceName(packages.TagRef(rec.Package, rec.Revision)),
		New: obj, Old: lease, Exclusive: true})
	if err != nil {
		return fmt.Errorf("push tag %s on %s: %w", name, rec.Commit, err)
	}
	return nil
}
