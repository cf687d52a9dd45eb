package publish

// Publishing: tag <pkg>/v<N+1> on the commit where a package landed on the
// deployment branch (SPEC §5).
//
// Tag creation (POST git/refs) is the compare-and-swap. A replica decides
// from its cache which landings of a package are untagged (landing.go) and
// which revision comes next (highest + 1), oldest landing first, and creates
// the tag. "Reference already exists" (422) means another replica (or a
// human) moved first: the tags are fetched again and everything is decided
// again — a landing already tagged is left alone, the next number is
// recomputed. Because the walk back from a commit stops at the package's
// highest tag and tags only landings after it, oldest first, revisions
// follow history order whichever replica handles whichever merge first:
// one tag per landing, no gaps, no duplicates.
//
// What was reviewed is what is published: a landing is tagged only if the
// package at the landed commit equals the package at the approved head
// (the pull request's head; for a merge commit without a known pull
// request, its merged parent) and that head met the approval policy (the
// same Verdict as porchbot/approval, publish_approval.go). With approvals
// required, a landing without a pull request (a direct push, the state
// porchbot found a package in) waits for an approver's /porch publish
// (PublishApproved). A landing that fails the check is never tagged: the
// pull request gets a comment, the landing commit a porchbot/publish check
// run, and a draft branch drafts/<pkg>/merged-<sha> holds the merged state
// for review; merging that draft publishes it (a "reviewed" landing,
// landing.go).
//
// REST calls per published landing: none for the tag (porchbot's signed
// annotated tag, pushed over git: revision_sign.go), with lifecycle.releases
// the release (1) and, with approvals required, the pull request's reviews
// (1), its comments when it has some (1) and approver lookups of the users
// whose approval could count. Without a pull request (direct push, resync)
// one more call finds the pull request that landed the commit. Git: one
// fetch of the tags per lost race.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// publishMaxAttempts bounds the decide-and-tag rounds of one package (each
// lost race costs one round).
const publishMaxAttempts = 2*core.MaxBackfill + 8

// ErrContention reports a package whose tags kept moving under the
// bot for publishMaxAttempts rounds.
var ErrContention = errors.New("publish: tags kept changing, gave up")

// ErrNoPackage reports a /porch publish of something that is not
// a top-level package at the commit.
var ErrNoPackage = errors.New("no such package")

// Releases are the release calls (a part of s.Hub).
type Releases interface {
	CreateRelease(ctx context.Context, owner, repo string, r hub.Release) (hub.Release, error)
	ListReleases(ctx context.Context, owner, repo string, p hub.Page) ([]hub.Release, hub.Next, error)
}

// Pulls are the pull request calls (a part of s.Hub).
type Pulls interface {
	ListReviews(ctx context.Context, owner, repo string, number int, p hub.Page) ([]hub.Review, hub.Next, error)
	ListPullsWithCommit(ctx context.Context, owner, repo, sha string, p hub.Page) ([]hub.Pull, hub.Next, error)
}

// Issues is the comment call (a part of s.Hub).
type Issues interface {
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (hub.Comment, error)
}

// API is what publishing needs from GitHub. Approval reads the
// approval facts of a landing's pull request (publish_approval.go).
type API struct {
	Releases Releases
	Pulls    Pulls
	Issues   Issues
	Checks   approval.ApprovalChecks
	Approval approval.ProposalAPI
	// Assets attaches the package index to the releases made (nil: not
	// attached).
	Assets ReleaseAssets
}

// NewAPI is the API of an installation's API.
func NewAPI(api hub.API) API {
	return API{Releases: api, Pulls: api, Issues: api,
		Checks: api, Approval: approval.NewProposalAPI(api), Assets: api}
}

// PublishedRevision is one revision tag.
type PublishedRevision struct {
	Package  string
	Revision int
	Tag      string
	Commit   plumbing.Hash
	// PR is the pull request the revision landed with (0: none known).
	PR int
	// Release is the release made for it (nil: none made here, e.g.
	// lifecycle.releases is off or another replica made it).
	Release    *hub.Release
	ReleaseErr error
	// Approvers are the approvals the verdict counted.
	Approvers []string
	// Adopted: a tag porchbot did not make, adopted by an approver's
	// /porch publish (revision_adopt.go).
	Adopted bool
}

// RefusedLanding is a landing not published because the merged package is
// not what was approved.
type RefusedLanding struct {
	Package string
	Commit  plumbing.Hash
	// Head is the approved head compared with (ZeroHash: unknown).
	Head   plumbing.Hash
	PR     int
	Reason string
	// Unreviewed: it landed without a pull request (a direct push, the
	// state porchbot found it in) and waits for an approver.
	Unreviewed bool
	// Differs lists the package files that differ from the approved head.
	Differs []string
	// DraftBranch holds the merged state for review ("" if this call did
	// not make it: another replica did, or nothing differs from the
	// published revision).
	DraftBranch string
	Commented   bool
}

// Outcome is what a publish did.
type Outcome struct {
	Commit plumbing.Hash
	// Skipped says why nothing was considered ("" otherwise).
	Skipped   string
	Published []PublishedRevision
	// AlreadyPublished are landings found tagged (by another replica or an
	// earlier run).
	AlreadyPublished []PublishedRevision
	Refused          []RefusedLanding
	// Deleted are the packages the commit removed (never tagged; their
	// revisions stay).
	Deleted []string
	// Superseded are packages whose highest revision is already on a later
	// commit: nothing up to Commit may be tagged.
	Superseded []string
	// Races counts lost tag races (each cost a fetch of the tags).
	Races int
}

// AdoptedTags lists the tags adopted (revision_adopt.go).
func (o *Outcome) AdoptedTags() []string {
	var out []string
	for _, r := range o.Published {
		if r.Adopted {
			out = append(out, r.Tag)
		}
	}
	return out
}

// Tags lists the published tags.
func (o *Outcome) Tags() []string {
	out := make([]string, len(o.Published))
	for i, r := range o.Published {
		out[i] = r.Tag
	}
	return out
}

// Publish publishes what commit landed on the deployment branch, with
// lifecycle.publishOn: merge. pr is the pull request that landed it (as
// the pull_request event gives it; its head is the approved head), nil for
// a direct push. Every package the commit changed is considered (and the
// draft package of pr, for a merge of a re-reviewed draft); for each, every
// earlier untagged landing is tagged first, oldest first.
func Publish(ctx context.Context, s *core.Session, api API, landed plumbing.Hash, pr *hub.Pull) (*Outcome, error) {
	out := &Outcome{Commit: landed}
	if s.Config.Lifecycle.PublishOn != config.PublishOnMerge {
		out.Skipped = "lifecycle.publishOn is " + s.Config.Lifecycle.PublishOn + ": revisions are published with /porch publish"
		return out, nil
	}
	if pr != nil {
		if !pr.Merged && pr.MergedAt.IsZero() {
			out.Skipped = fmt.Sprintf("pull request #%d is not merged", pr.Number)
			return out, nil
		}
		if base := pr.Base.Ref; base != "" && base != s.DeploymentBranch {
			out.Skipped = fmt.Sprintf("pull request #%d merged into %s, not the deployment branch %s", pr.Number, base, s.DeploymentBranch)
			return out, nil
		}
	}
	p := NewPublisher(s, api, out, true)
	p.Log = p.Log.WithField("commit", landed.String())
	if pr != nil {
		p.Log = p.Log.WithField("pull_request", pr.Number)
	}
	if ok, err := p.onDeploymentBranch(ctx, landed); err != nil || !ok {
		return out, err
	}
	changed, err := core.ChangedPackages(ctx, s, landed)
	if err != nil {
		return out, fmt.Errorf("publish %s: %w", landed, err)
	}
	names := make([]string, 0, len(changed)+1)
	for _, l := range changed {
		names = append(names, l.Package)
	}
	reviewPkg := ""
	if pr != nil {
		if pkg, _, ok := packages.ParseDraftBranchName(pr.Head.Ref); ok {
			reviewPkg = pkg
			if !publishContains(names, pkg) {
				names = append(names, pkg)
			}
		}
	}
	for _, name := range names {
		if err := p.PublishPackage(ctx, name, landed, pr, name == reviewPkg); err != nil {
			return out, err
		}
	}
	p.Log.WithFields(logrus.Fields{"published": out.Tags(), "refused": len(out.Refused),
		"deleted": out.Deleted, "races": out.Races}).Info("publish on merge")
	p.updateIndex(ctx)
	return out, nil
}

// PublishPackage publishes package pkg's untagged landings up to commit
// (usually the deployment branch's head), for /porch publish (publishOn:
// never; it works with merge too). Same compare-and-swap and checks as
// Publish; a landing that was not what was approved is reported in
// Refused (no comment or draft: the command replies).
func PublishPackage(ctx context.Context, s *core.Session, api API, pkg string, commit plumbing.Hash) (*Outcome, error) {
	return publishPackageBy(ctx, s, api, pkg, commit, "", "")
}

// PublishAdopting is PublishPackage by user by where no approval is
// required (approvals.required: 0): it also adopts pkg's tags that are not
// porchbot's revisions (revision_adopt.go).
func PublishAdopting(ctx context.Context, s *core.Session, api API, pkg string, commit plumbing.Hash, by string) (*Outcome, error) {
	return publishPackageBy(ctx, s, api, pkg, commit, "", strings.TrimPrefix(strings.TrimSpace(by), "@"))
}

// PublishApproved is /porch publish <package> by approver by (whom the
// caller checked is one): the latest unpublished landing of pkg up to
// commit is published as approved by them, whatever its pull request's
// approvals (a landing refused for lack of approval, a direct push, the
// state porchbot found the package in), unless they asked for it
// themselves and approvals.allowSelfApproval is false. Earlier landings
// are judged as Publish judges them. The release names by as approver.
func PublishApproved(ctx context.Context, s *core.Session, api API, pkg string, commit plumbing.Hash, by string) (*Outcome, error) {
	if strings.TrimSpace(by) == "" {
		return &Outcome{Commit: commit}, fmt.Errorf("publish %s: no approver", pkg)
	}
	by = strings.TrimPrefix(strings.TrimSpace(by), "@")
	return publishPackageBy(ctx, s, api, pkg, commit, by, by)
}

// publishPackageBy publishes pkg up to commit, the latest landing as
// approved by by ("": as its verdict says), after adopting the package's
// tags porchbot did not make when adopter is set.
func publishPackageBy(ctx context.Context, s *core.Session, api API, pkg string, commit plumbing.Hash, by, adopter string) (*Outcome, error) {
	out := &Outcome{Commit: commit}
	if err := packages.ValidateName(pkg); err != nil {
		return out, fmt.Errorf("publish: %w", err)
	}
	p := NewPublisher(s, api, out, false)
	p.approvedBy, p.adoptedBy = by, adopter
	p.Log = p.Log.WithFields(logrus.Fields{"commit": commit.String(), "package": pkg})
	if ok, err := p.onDeploymentBranch(ctx, commit); err != nil || !ok {
		return out, err
	}
	if ok, err := core.LandingIsTopLevel(ctx, s, commit, core.PackageDir(s.Config.Packages.Root, pkg)); err != nil || !ok {
		if err == nil {
			err = ErrNoPackage
		}
		return out, fmt.Errorf("publish %s at %s: %w", pkg, commit, err)
	}
	if adopter != "" {
		if err := p.adoptTags(ctx, pkg); err != nil {
			return out, err
		}
	}
	if err := p.PublishPackage(ctx, pkg, commit, nil, false); err != nil {
		return out, err
	}
	p.Log.WithFields(logrus.Fields{"published": out.Tags(), "adopted": out.AdoptedTags(), "refused": len(out.Refused), "races": out.Races}).Info("publish")
	p.updateIndex(ctx)
	return out, nil
}

// Publisher carries one publish run.
type Publisher struct {
	Session *core.Session
	API     API
	out     *Outcome
	Log     logrus.FieldLogger
	// event: this run handles a landing event; refusals get a comment
	// and a draft, deletions a comment.
	event bool
	// prs memoises the pull request that landed a commit (nil: none).
	prs map[plumbing.Hash]*hub.Pull
	// refused remembers the refusals recorded (rounds repeat decisions).
	refused map[string]bool
	// approvedBy is the approver of a /porch publish <package>: the latest
	// pending landing of the package counts as approved by them
	// (PublishApproved); approveCommit is that landing.
	approvedBy    string
	approveCommit plumbing.Hash
	// adoptedBy adopts the package's tags porchbot did not make
	// (revision_adopt.go).
	adoptedBy string
	// repaired are the releases the resync made for revisions that had
	// none: they get the package index too (index_asset.go).
	Repaired []*hub.Release
}

func NewPublisher(s *core.Session, api API, out *Outcome, event bool) *Publisher {
	return &Publisher{Session: s, API: api, out: out, Log: s.Log, event: event,
		prs: map[plumbing.Hash]*hub.Pull{}, refused: map[string]bool{}}
}

func (p *Publisher) Owner() (string, string) { return p.Session.Repo.Owner, p.Session.Repo.Name }

// onDeploymentBranch checks that commit is on the deployment branch's
// first-parent history, fetching once if the cache does not know it.
func (p *Publisher) onDeploymentBranch(ctx context.Context, commit plumbing.Hash) (bool, error) {
	for attempt := 0; ; attempt++ {
		ok, err := p.firstParentOfDeployment(ctx, commit)
		if err == nil && ok {
			return true, nil
		}
		if err != nil && !errors.Is(err, core.ErrLandingCommitMissing) && !errors.Is(err, gitstore.ErrNotFound) {
			return false, fmt.Errorf("publish %s: %w", commit, err)
		}
		if attempt > 0 {
			p.out.Skipped = fmt.Sprintf("commit %s is not on the first-parent history of %s", commit, p.Session.DeploymentBranch)
			return false, nil
		}
		if err := p.Session.Git.Fetch(ctx, gitstore.BranchesRefSpec, gitstore.TagsRefSpec); err != nil {
			return false, fmt.Errorf("publish %s: fetch: %w", commit, err)
		}
	}
}

func (p *Publisher) firstParentOfDeployment(ctx context.Context, commit plumbing.Hash) (bool, error) {
	head, err := p.Session.ResolveRef(ctx, "refs/heads/"+p.Session.DeploymentBranch)
	if err != nil {
		return false, err
	}
	var ok bool
	err = p.Session.Git.With(ctx, func(repo *git.Repository) error {
		w := p.Session.Walker(ctx, repo)
		if _, err := w.Commit(commit); err != nil {
			return err
		}
		ok, err = w.IsFirstParentAncestor(commit, head)
		return err
	})
	return ok, err
}

// plan reads the tags and the package's history up to upTo.
func (p *Publisher) plan(ctx context.Context, name string, upTo plumbing.Hash, reviewAt bool) (core.RevisionTags, *core.PackageHistory, error) {
	var (
		tags core.RevisionTags
		hist *core.PackageHistory
	)
	err := p.Session.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		if tags, err = p.Session.ReadLandingTags(repo.Storer); err != nil {
			return err
		}
		w := p.Session.Walker(ctx, repo)
		hist, err = w.History(name, core.PackageDir(p.Session.Config.Packages.Root, name), upTo, tags, core.LandingHistoryOptions{ReviewAt: reviewAt})
		return err
	})
	if err != nil {
		return tags, nil, fmt.Errorf("publish %s: %w", name, err)
	}
	return tags, hist, nil
}

// PublishPackage tags the publishable untagged landings of name up to
// upTo, oldest first, deciding again after every lost race. pr is the
// pull request that landed upTo (nil: unknown).
func (p *Publisher) PublishPackage(ctx context.Context, name string, upTo plumbing.Hash, pr *hub.Pull, reviewAt bool) error {
	log := p.Log.WithField("package", name)
	if err := packages.ValidateName(name); err != nil {
		log.WithError(err).Warn("not publishing a package with an invalid name")
		return nil
	}
	for attempt := 0; attempt < publishMaxAttempts; attempt++ {
		tags, hist, err := p.plan(ctx, name, upTo, reviewAt)
		if err != nil {
			return err
		}
		if gaps := packages.Gaps(tags.Revisions(name)); len(gaps) > 0 && attempt == 0 {
			log.WithField("missing", gaps).Warn("revision tags have gaps (deleted by hand?)")
		}
		if hist.Superseded {
			p.out.Superseded = append(p.out.Superseded, name)
			log.WithField("latest", hist.Latest).Info("a later commit already holds the latest revision; nothing to tag")
			return nil
		}
		if len(hist.Pending) == 0 {
			if hist.BaseRevision > 0 && !hist.Base.IsZero() {
				p.out.AlreadyPublished = append(p.out.AlreadyPublished, PublishedRevision{Package: name,
					Revision: hist.BaseRevision, Tag: packages.TagName(name, hist.BaseRevision), Commit: hist.Base})
			}
			return nil
		}
		raced, err := p.tagPending(ctx, log, tags, hist, upTo, pr)
		if err != nil {
			return err
		}
		if !raced {
			return nil
		}
		p.out.Races++
		if err := p.Session.Git.Fetch(ctx, gitstore.TagsRefSpec); err != nil {
			return fmt.Errorf("publish %s: fetch tags: %w", name, err)
		}
	}
	return fmt.Errorf("publish %s up to %s: %w", name, upTo, ErrContention)
}

// tagPending goes through the pending landings oldest first; raced is true
// when a tag already existed (decide again).
func (p *Publisher) tagPending(ctx context.Context, log logrus.FieldLogger, tags core.RevisionTags, hist *core.PackageHistory, upTo plumbing.Hash, pr *hub.Pull) (bool, error) {
	last := hist.BaseTree
	// lastCommit holds the latest revision, if it is on this history: the
	// base of a draft of a refused landing.
	var lastCommit plumbing.Hash
	if hist.BaseRevision > 0 && hist.BaseRevision == hist.Latest {
		lastCommit = hist.Base
	}
	p.approveCommit = plumbing.ZeroHash
	if p.approvedBy != "" {
		for _, l := range hist.Pending {
			if l.Kind != core.LandingDeleted {
				p.approveCommit = l.Commit
			}
		}
	}
	for _, l := range hist.Pending {
		var given *hub.Pull
		if l.Commit == upTo {
			given = pr
		}
		if l.Kind == core.LandingDeleted {
			if err := p.deleted(ctx, tags, l, given); err != nil {
				return false, err
			}
			continue
		}
		v, err := p.verdict(ctx, l, given, last)
		if err != nil {
			return false, err
		}
		if !v.publish {
			if v.refused {
				if err := p.refuse(ctx, l, v, l.Commit == upTo, lastCommit); err != nil {
					return false, err
				}
			} else if v.reason != "" {
				log.WithFields(logrus.Fields{"commit": l.Commit.String(), "reason": v.reason}).Debug("landing not published")
			}
			continue
		}
		n := packages.Next(tags.Revisions(l.Package))
		rec := p.revisionRecord(l, n, v)
		err = p.createTag(ctx, rec)
		if errors.Is(err, errPublishTagExists) {
			log.WithFields(logrus.Fields{"tag": packages.TagName(l.Package, n), "commit": l.Commit.String()}).
				Info("tag already exists: another replica published; deciding again")
			return true, nil
		}
		if err != nil {
			return false, err
		}
		tags.AddPublished(rec, l.Commit)
		last, lastCommit = l.Tree, l.Commit
		rev := PublishedRevision{Package: l.Package, Revision: n, Tag: packages.TagName(l.Package, n),
			Commit: l.Commit, PR: v.PRNumber(), Approvers: v.approvers}
		log.WithFields(logrus.Fields{"tag": rev.Tag, "commit": l.Commit.String(), "kind": string(l.Kind)}).Info("published revision")
		if p.Session.Config.Lifecycle.Releases {
			rev.Release, rev.ReleaseErr = p.Release(ctx, tags, l, n, v)
			if rev.ReleaseErr != nil {
				log.WithError(rev.ReleaseErr).WithField("tag", rev.Tag).Warn("release not created (resync repairs it)")
			}
		}
		p.out.Published = append(p.out.Published, rev)
	}
	return false, nil
}

// deleted records a package removed by landing l and, for an event with a
// pull request, says so on it.
func (p *Publisher) deleted(ctx context.Context, tags core.RevisionTags, l core.Landing, pr *hub.Pull) error {
	if publishContains(p.out.Deleted, l.Package) {
		return nil
	}
	p.out.Deleted = append(p.out.Deleted, l.Package)
	log := p.Log.WithFields(logrus.Fields{"package": l.Package, "commit": l.Commit.String()})
	log.Info("package deleted; its revision tags stay")
	if !p.event {
		return nil
	}
	if pr == nil {
		var err error
		if pr, err = p.LookupPR(ctx, l.Commit); err != nil || pr == nil {
			return err
		}
	}
	revs := tags.Revisions(l.Package)
	var b strings.Builder
	fmt.Fprintf(&b, "Package %s was deleted from %s (%s).", mdquote.Code(l.Package), mdquote.Code(p.Session.DeploymentBranch), l.Commit)
	switch len(revs) {
	case 0:
		b.WriteString(" It had no published revision.\n")
	case 1:
		fmt.Fprintf(&b, " Its published revision remains as the tag %s.\n", mdquote.Code(packages.TagName(l.Package, revs[0])))
	default:
		fmt.Fprintf(&b, " Its %d published revisions remain as tags %s … %s.\n", len(revs),
			mdquote.Code(packages.TagName(l.Package, revs[0])), mdquote.Code(packages.TagName(l.Package, revs[len(revs)-1])))
	}
	owner, repo := p.Owner()
	if _, err := p.API.Issues.CreateComment(ctx, owner, repo, pr.Number, b.String()); err != nil {
		return fmt.Errorf("comment on #%d: %w", pr.Number, err)
	}
	return nil
}

func publishContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
