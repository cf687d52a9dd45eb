package publish

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
)

// A tag <pkg>/v<N> that porchbot did not make (pushed by hand, made
// before revisions were signed, or carrying a record that does not verify
// here) is no revision: nothing is derived from it. Its push gets a failed
// porchbot/publish check run on its commit recording who pushed it
// (ReportTagPush), /porch list and the dashboard show it, and an approver
// adopts it with /porch publish <pkg>: porchbot replaces the tag ref with
// its own signed annotated tag on the same commit, under a lease on the
// tag's value (a tag is never moved to another commit), and it propagates
// as any revision does (release, index, update pull requests, variants).

// ReportTagPush reports the push of tag (its name, "<pkg>/v<N>") by
// pusher (the push event's sender) when it is not a revision porchbot
// published: a failed porchbot/publish check run on its commit that records
// the pusher, so that their own /porch publish does not adopt it unless
// approvals.allowSelfApproval. One call; none for porchbot's own tags or a
// tag that is not a revision name. It says whether it reported.
func ReportTagPush(ctx context.Context, s *core.Session, api API, tag, pusher string) (bool, error) {
	pkg, n, ok := packages.ParseTagName(tag)
	if !ok {
		return false, nil
	}
	var u core.UnverifiedTag
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		ref, err := repo.Storer.Reference(plumbing.ReferenceName(packages.TagRef(pkg, n)))
		if err != nil {
			return nil // deleted since: nothing to report
		}
		t, _, isTag, why := revrecord.IsRevision(repo.Storer, s.SigningKey(), s.Repo.FullName(), ref)
		if isTag && why != nil {
			u = core.UnverifiedTag{Tag: t, Why: why}
		}
		return nil
	})
	if err != nil || u.Why == nil {
		return false, err
	}
	p := NewPublisher(s, api, &Outcome{Commit: u.Commit}, false)
	if err := p.unverifiedStatus(ctx, u, pusher); err != nil {
		return false, err
	}
	s.Log.WithFields(logrus.Fields{"tag": tag, "pusher": pusher, "why": u.Why.Error()}).
		Warn("a tag porchbot did not publish: reported, nothing derived from it")
	return true, nil
}

// unverifiedStatus posts the failed porchbot/publish check run of u.
func (p *Publisher) unverifiedStatus(ctx context.Context, u core.UnverifiedTag, pusher string) error {
	if p.API.Checks == nil {
		return nil
	}
	owner, repo := p.Owner()
	now := time.Now().UTC()
	by := "someone other than porchbot"
	if pusher != "" {
		by = mdquote.Code(pusher)
	}
	summary := fmt.Sprintf("The tag %s was pushed by %s; it is not a revision porchbot published: %s.\n\n"+
		"Nothing is derived from it: no release, no package index entry, no update pull requests, no variant updates.\n\n"+
		"If the tagged commit is what %s should publish, an allowed approver adopts the tag with %s "+
		"(porchbot then signs it on the same commit and it propagates like any revision; whoever pushed it cannot adopt "+
		"it themselves unless approvals.allowSelfApproval). Otherwise delete the tag.",
		mdquote.Code(u.Name()), by, u.Why, mdquote.Code(u.Package), mdquote.Code("/porch publish "+u.Package))
	_, err := p.API.Checks.CreateCheckRun(ctx, owner, repo, hub.CheckRunWrite{
		Name: CheckName, HeadSHA: u.Commit.String(), ExternalID: waitingExternalID(u.Name(), pusher),
		Status: "completed", Conclusion: "failure", CompletedAt: now,
		Output: &hub.CheckOutput{Title: "Not a porchbot revision: " + u.Name(),
			Summary: summary}})
	if err != nil {
		return fmt.Errorf("check run %s on %s: %w", CheckName, u.Commit, err)
	}
	return nil
}

// adoptTags adopts, as approved by p.adoptedBy, every tag of pkg that is
// not porchbot's revision and names a commit of the deployment branch's
// first-parent history, oldest revision first: each is replaced by
// porchbot's signed tag on the same commit (under a lease on its value)
// and published (release, index, and through the outcome update pull
// requests and variants). The pusher of a tag, as its check run recorded,
// cannot adopt it unless approvals.allowSelfApproval. Per tag: one
// check-runs call and, with lifecycle.releases, the release.
func (p *Publisher) adoptTags(ctx context.Context, pkg string) error {
	tags, err := core.ReadRevisionTags(ctx, p.Session)
	if err != nil {
		return err
	}
	for _, u := range tags.Unverified() {
		if u.Package != pkg {
			continue
		}
		log := p.Log.WithFields(logrus.Fields{"tag": u.Name(), "commit": u.Commit.String()})
		refuse := func(reason string) {
			p.out.Refused = append(p.out.Refused, RefusedLanding{Package: pkg, Commit: u.Commit, Reason: reason})
			log.WithField("reason", reason).Info("tag not adopted")
		}
		if ok, err := p.firstParentOfDeployment(ctx, u.Commit); err != nil || !ok {
			refuse(fmt.Sprintf("the tag %s is not on a commit of %s's first-parent history, so it is not adopted", mdquote.Code(u.Name()), p.Session.DeploymentBranch))
			continue
		}
		if p.Session.Config.Approvals.Required > 0 {
			pusher, err := p.recordedPusher(ctx, u.Commit, u.Name())
			if err != nil {
				return err
			}
			if self, detail := approval.SelfExcluded(p.Session.Config.Approvals, pusher, p.adoptedBy); pusher != "" && self {
				refuse(fmt.Sprintf("@%s's /porch publish does not adopt %s: they pushed it (%s)", p.adoptedBy, mdquote.Code(u.Name()), detail))
				continue
			}
		}
		rec := revrecord.Record{Repo: p.Session.Repo.FullName(), Package: pkg, Revision: u.Revision, Commit: u.Commit.String(),
			Approvers: []string{p.adoptedBy}, By: p.adoptedBy, Adopted: true}
		if err := pushRevisionTag(ctx, p.Session, rec, u.Object); err != nil {
			if errors.Is(err, gitstore.ErrLeaseBroken) {
				refuse(fmt.Sprintf("the tag %s changed meanwhile; run the command again", mdquote.Code(u.Name())))
				continue
			}
			return err
		}
		tags.AddPublished(rec, u.Commit)
		rev := PublishedRevision{Package: pkg, Revision: u.Revision, Tag: u.Name(), Commit: u.Commit,
			Approvers: rec.Approvers, Adopted: true}
		log.WithField("by", p.adoptedBy).Info("tag adopted as a revision")
		if p.Session.Config.Lifecycle.Releases {
			l := core.Landing{Package: pkg, Dir: core.PackageDir(p.Session.Config.Packages.Root, pkg), Commit: u.Commit}
			rev.Release, rev.ReleaseErr = p.Release(ctx, tags, l, u.Revision, LandingVerdict{approvers: rec.Approvers, adopted: true})
			if rev.ReleaseErr != nil {
				log.WithError(rev.ReleaseErr).Warn("release not created (resync repairs it)")
			}
		}
		p.out.Published = append(p.out.Published, rev)
	}
	return nil
}
