package updates

// The update branch and pull request of one downstream package.
//
// The branch porch/update/<package> holds one porchbot commit on the
// deployment branch's head; a later upstream revision replaces it (pushed
// with the old commit as the lease, so a push by anyone else in between is
// never overwritten). Creating the branch is a create-only push and
// creating the pull request is refused by GitHub when one is open for the
// branch: the two compare-and-swaps that keep replicas to one branch and
// one pull request per package. A branch someone else pushed to is left
// alone: its pull request gets one comment per revision saying what the
// update would have changed. A pull request closed unmerged names its
// revision in its body: porchbot opens none again until a newer one.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// Reviewers requests reviewers (a part of hub.API).
type Reviewers interface {
	RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error
}

// Claims creates refs (a part of hub.API): a comment
// porchbot must post once per revision is claimed first by creating a ref
// named for it, the compare-and-swap that keeps replicas to one comment.
type Claims interface {
	CreateRef(ctx context.Context, owner, repo, ref, sha string) error
}

// Issues opens the issue that lists the conflicts of an update
// refused without an open pull request (a part of hub.API).
type Issues interface {
	CreateIssue(ctx context.Context, owner, repo string, w hub.IssueWrite) (hub.Issue, error)
}

// API is the GitHub surface of update pull requests in a downstream
// repository.
type API struct {
	Proposal  approval.ProposalAPI
	Reviewers Reviewers
	Claims    Claims
	Issues    Issues
	// Web is the GitHub web base URL for links in bodies ("" none).
	Web string
	// Identity is who porchbot's commits are by.
	Identity core.Identity
}

// NewAPI is the API of an installation's API.
func NewAPI(api hub.API, proposal approval.ProposalAPI) API {
	return API{Proposal: proposal, Reviewers: api, Claims: api, Issues: api}
}

// Update outcomes.
const (
	Opened         = "opened"        // a new pull request
	Refreshed      = "refreshed"     // the open pull request now proposes this revision
	Current        = "current"       // the branch already held this update (another replica, a redelivery)
	Waiting        = "waiting"       // pushed; the pull request waits for updates.prConcurrentLimit
	Held           = "held"          // someone else pushed to the branch: commented, not overwritten
	Declined       = "declined"      // a pull request for this revision was closed unmerged
	UpToDate       = "up-to-date"    // the package tracks this revision or a later one
	Refused        = "refused"       // onConflict fail or fast-forward: conflicts listed, nothing pushed
	OwnedByVariant = "variant"       // a variant owns the package: its reconcile updates it (variant_update.go)
	HeldByRollout  = "rollout"       // the upstream's rollout has not reached the package's wave (bot/lifecycle/rollout)
	NotOnboarded   = "not-onboarded" // porchbot is not set up in the downstream yet (core.ErrNotOnboarded)
)

// Outcome is what ProposeUpdate did.
type Outcome struct {
	State  string
	PR     *hub.Pull
	Head   plumbing.Hash
	Branch string
	// Commented: this call posted a comment (or opened Issue).
	Commented bool
	// Issue lists the conflicts of a refused update without a pull request.
	Issue int
}

// PRNumber is the number of the outcome's pull request (0: none).
func (o *Outcome) PRNumber() int {
	if o == nil || o.PR == nil {
		return 0
	}
	return o.PR.Number
}

// ProposeUpdate makes plan's update branch and pull request in ds.
// limit is updates.prConcurrentLimit (0: none).
func ProposeUpdate(ctx context.Context, ds *core.Session, api API, plan *Plan, notes []UpstreamNote) (*Outcome, error) {
	out := &Outcome{Branch: plan.Branch}
	log := ds.Log.WithFields(logrus.Fields{"package": plan.Package, "ref": plan.Branch, "upstream": plan.Upstream.Tag()})
	if plan.UpToDate {
		out.State = UpToDate
		if plan.Variant {
			out.State = OwnedByVariant
		}
		return out, nil
	}
	owner, repo := ds.Repo.Owner, ds.Repo.Name
	// One call: every pull request of the repository's recent ones, for
	// this branch's open and closed ones and the count of open updates
	// (none when the caller listed them: a variant's reconcile).
	prs := plan.Pulls
	if prs == nil {
		var err error
		if prs, _, err = api.Proposal.Pulls.ListPulls(ctx, owner, repo, hub.PullQuery{State: "all",
			Base: ds.DeploymentBranch, Page: hub.Page{PerPage: 100}}); err != nil {
			return nil, fmt.Errorf("update %s: list pull requests: %w", plan.Package, err)
		}
	}
	var open *hub.Pull
	openUpdates, declined := 0, 0
	for _, pr := range prs {
		head := pr.Head.Ref
		if _, ok := packages.ParseUpdateBranchName(head); !ok || rendercheck.IsForkPullRequest(ds.Repo, pr) {
			continue
		}
		if pr.State == "open" {
			openUpdates++
		}
		if head != plan.Branch {
			continue
		}
		switch {
		case pr.State == "open":
			open = &pr
		case pr.MergedAt.IsZero() && !pr.Merged:
			declined = max(declined, updateMarkerRevision(pr.Body))
		}
	}
	if open == nil && declined >= plan.Upstream.Revision {
		log.WithField("declined", declined).Info("an update pull request for this revision was closed unmerged; not opening another")
		out.State = Declined
		return out, nil
	}
	body := Body(plan, api.Web, notes) + plan.Note
	if plan.Files == nil {
		return refusedUpdate(ctx, ds, api, plan, open, body, out)
	}

	head, err := BranchHead(ctx, ds, plan.Branch)
	if err != nil {
		return nil, err
	}
	held := false
	res, err := ds.CommitUnderLease(ctx, api.Identity, plan.Branch, head, 3, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		if !head.IsZero() {
			st, err := updateBranchState(ctx, ds, head, plan, api.Identity)
			if err != nil {
				return nil, err
			}
			if !st.own {
				held = true
				return nil, nil
			}
			if st.revision >= plan.Upstream.Revision && st.base == plan.Base && (plan.Holds == nil || plan.Holds(st.kptfile)) {
				return nil, nil // this update is there already
			}
		}
		return &core.PackageCommit{Parent: plan.Base, Dir: plan.Dir, Files: plan.Files, Message: updateCommitMessage(plan),
			Trailer: updateTrailer(plan), Exclusive: head.IsZero()}, nil
	})
	switch {
	case errors.Is(err, gitstore.ErrNoChanges):
		out.State = UpToDate
		return out, nil
	case err != nil:
		return nil, fmt.Errorf("update %s: %w", plan.Package, err)
	}
	out.Head = res.Head
	if held {
		out.State = Held
		out.PR = open
		if open != nil {
			if out.Commented, err = commentOnce(ctx, ds, api, open.Number, res.Head, heldMarker(plan), heldComment(plan)); err != nil {
				return out, err
			}
		}
		log.WithField("commented", out.Commented).Info("update branch has commits porchbot did not make; not overwriting it")
		return out, nil
	}
	switch {
	case open != nil:
		out.PR, out.State = open, Refreshed
		if !res.Pushed {
			out.State = Current
		}
		body += refreshedRequester(ctx, ds, api, open, out.Head)
		if open.Body != body || open.Title != updateTitle(plan) {
			if _, err := api.Proposal.Pulls.EditPull(ctx, owner, repo, open.Number, hub.PullEdit{
				Title: updateTitle(plan), Body: body}); err != nil {
				return out, fmt.Errorf("update %s: edit #%d: %w", plan.Package, open.Number, err)
			}
		}
	case ds.Config.Updates.PRConcurrentLimit > 0 && openUpdates >= ds.Config.Updates.PRConcurrentLimit:
		out.State = Waiting
		log.WithField("open_updates", openUpdates).Info("update pull request waits: updates.prConcurrentLimit reached")
		return out, nil
	default:
		labels := append(append([]string{packages.LabelProposed}, ds.Config.Updates.Labels...), plan.Labels...)
		if err := OpenUpdatePR(ctx, ds, api, plan.Package, plan.Branch, updateTitle(plan), body, plan.RequestedBy, labels, out); err != nil {
			return out, err
		}
	}
	log.WithFields(logrus.Fields{"state": out.State, "pull_request": out.PRNumber(), "head": out.Head.String()}).Info("update pull request")
	return out, nil
}

// OpenUpdatePR opens the pull request of an update branch and labels it
// (labels: porch/proposed and updates.labels for an update), asking
// updates.reviewers. Another replica's pull request for the same branch is
// found, not doubled.
func OpenUpdatePR(ctx context.Context, ds *core.Session, api API, pkg, branch, title, body, requestedBy string, labels []string, out *Outcome) error {
	if key := api.Proposal.RecordKey; len(key) > 0 && !out.Head.IsZero() {
		// Who asked, in the body the creation writes anyway
		// (approval_requester_at.go): no call of its own.
		requester, _ := updateRequester(api, requestedBy)
		body += "\n" + approval.RequesterAtRecord(key, ds.Repo.FullName(), branch, out.Head.String(), requester) + "\n"
	}
	pr, created, err := proposals.CreateProposal(ctx, ds, api.Proposal, branch, hub.NewPull{Title: title,
		Head: branch, Base: ds.DeploymentBranch, Body: body})
	if err != nil {
		return fmt.Errorf("update %s: %w", pkg, err)
	}
	out.PR, out.State = &pr, Opened
	if !created {
		out.State = Current
		return nil
	}
	if len(api.Proposal.RecordKey) == 0 {
		// No key to sign a body record with: the comment record (one call).
		requester, how := updateRequester(api, requestedBy)
		if err := approval.RecordRequester(ctx, ds, api.Proposal.Issues, api.Proposal.RecordKey, pr.Number, requester, how); err != nil {
			return fmt.Errorf("update %s: %w", pkg, err)
		}
	}
	if err := api.Proposal.Issues.AddLabels(ctx, ds.Repo.Owner, ds.Repo.Name, pr.Number, labels); err != nil {
		return fmt.Errorf("update %s: label #%d: %w", pkg, pr.Number, err)
	}
	if rs := ds.Config.Updates.Reviewers; len(rs) > 0 && api.Reviewers != nil {
		var users, teams []string
		for _, r := range rs {
			if r.IsTeam() {
				teams = append(teams, r.Team)
			} else {
				users = append(users, r.Login)
			}
		}
		if err := api.Reviewers.RequestReviewers(ctx, ds.Repo.Owner, ds.Repo.Name, pr.Number, users, teams); err != nil {
			ds.Log.WithError(err).WithField("pull_request", pr.Number).Warn("could not request the update reviewers")
		}
	}
	return nil
}

// refusedUpdate lists the conflicts of an update that was not merged
// (onConflict fail, fast-forward over local changes), once per revision:
// as a comment on the open update pull request, or else in an issue
// (nothing is pushed: there is no update to propose).
func refusedUpdate(ctx context.Context, ds *core.Session, api API, plan *Plan, open *hub.Pull, body string, out *Outcome) (*Outcome, error) {
	out.State, out.PR = Refused, open
	ds.Log.WithFields(logrus.Fields{"package": plan.Package, "upstream": plan.Upstream.Tag(), "conflicts": len(plan.Conflicts)}).
		Warn("update not merged: " + plan.Refused)
	var err error
	if open != nil {
		out.Commented, err = commentOnce(ctx, ds, api, open.Number, plumbing.NewHash(open.Head.SHA), refusedMarker(plan), body)
		return out, err
	}
	m := refusedMarker(plan)
	if api.Claims != nil {
		err := api.Claims.CreateRef(ctx, ds.Repo.Owner, ds.Repo.Name, m.ref(0), plan.Base.String())
		if publish.PublishAlreadyExists(err) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("claim the issue %s: %w", m.ref(0), err)
		}
	}
	if api.Issues == nil {
		return out, nil
	}
	is, err := api.Issues.CreateIssue(ctx, ds.Repo.Owner, ds.Repo.Name, hub.IssueWrite{
		Title: fmt.Sprintf("%s: not updated (conflicts)", updateTitle(plan)), Body: m.String() + "\n" + body,
		Labels: ds.Config.Updates.Labels})
	if err != nil {
		return out, fmt.Errorf("update %s: open the conflicts issue: %w", plan.Package, err)
	}
	out.Issue, out.Commented = is.Number, true
	return out, nil
}

// updateBranch is what porchbot knows of an update branch's head.
type updateBranch struct {
	own      bool          // porchbot's update commit
	revision int           // the upstream revision its Kptfile locks
	base     plumbing.Hash // its parent
	kptfile  []byte        // the package's Kptfile there
}

// updateBranchState reads the head of an update branch: porchbot's own
// update commit (its author and kpt: trailer, one commit on the deployment
// branch's history), the revision its package locks and the commit it was
// made on.
func updateBranchState(ctx context.Context, ds *core.Session, head plumbing.Hash, plan *Plan, id core.Identity) (updateBranch, error) {
	if id.Name == "" {
		id = core.DefaultIdentity
	}
	var st updateBranch
	msg, author, err := core.CommitMessage(ctx, ds.Git, head)
	if err != nil {
		return st, err
	}
	t, ok := packages.FindTrailer(msg)
	st.own = ok && author == id.Name && t.Package == plan.Package && t.Task != nil && t.Task.Type == packages.TaskUpgrade
	if !st.own {
		return st, nil
	}
	err = ds.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(head)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", head, err)
		}
		if len(c.ParentHashes) != 1 || ds.DeploymentHead.IsZero() {
			st.own = false
			return nil
		}
		st.base = c.ParentHashes[0]
		// porchbot makes one commit on the deployment branch: a head on
		// top of anything else (someone's commit under a look-alike of
		// porchbot's) is not its own.
		if st.base == ds.DeploymentHead {
			return nil
		}
		parent, err := repo.CommitObject(st.base)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", st.base, err)
		}
		dep, err := repo.CommitObject(ds.DeploymentHead)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", ds.DeploymentHead, err)
		}
		st.own, err = parent.IsAncestor(dep)
		return err
	})
	if err != nil || !st.own {
		return st, err
	}
	if data, ok, err := ds.ReadFile(ctx, head, plan.Dir+"/"+kptfile.FileName); err == nil && ok {
		st.kptfile = data
		if kf, err := kptfile.Parse(data); err == nil && kf.Kptfile().UpstreamLock != nil && kf.Kptfile().UpstreamLock.Git != nil {
			st.revision = LockRevision(plan.Upstream.Package, kf.Kptfile().UpstreamLock.Git.Ref)
		}
	}
	return st, nil
}

// BranchHead is a branch's head in the session's cache (ZeroHash: none).
func BranchHead(ctx context.Context, s *core.Session, branch string) (plumbing.Hash, error) {
	h, err := s.ResolveRef(ctx, plumbing.NewBranchReferenceName(branch).String())
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	return h, err
}

func updateTitle(plan *Plan) string {
	return fmt.Sprintf("Update %s to %s", plan.Package, plan.Upstream.Tag())
}

func updateCommitMessage(plan *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nUpstream %s %s → %s (%s), strategy %s.", updateTitle(plan), plan.Upstream.RepoURL()+plan.Upstream.Directory(),
		plan.FromRef, plan.Upstream.Tag(), plan.Upstream.Commit, FirstNonEmpty(plan.Strategy, "resource-merge"))
	if len(plan.Conflicts) > 0 {
		fmt.Fprintf(&b, " %s, resolved to %s.", words.Count(len(plan.Conflicts), "conflict", "conflicts"), plan.OnConflict)
	}
	if plan.Rendered {
		b.WriteString(" Rendered.")
	}
	return b.String()
}

// updateTrailer is Porch's trailer of an upgrade task.
func updateTrailer(plan *Plan) packages.Trailer {
	spec, _ := json.Marshal(map[string]any{
		"oldUpstream": map[string]any{"type": kptfile.OriginGit, "git": map[string]string{"repo": plan.Upstream.RepoURL(),
			"directory": plan.Upstream.Directory(), "ref": plan.FromRef}},
		"newUpstream": map[string]any{"type": kptfile.OriginGit, "git": map[string]string{"repo": plan.Upstream.RepoURL(),
			"directory": plan.Upstream.Directory(), "ref": plan.Upstream.Tag()}},
		"strategy": FirstNonEmpty(plan.Strategy, kptfile.ResourceMerge)})
	return packages.Trailer{Package: plan.Package, Revision: "0", Task: &packages.Task{Type: packages.TaskUpgrade, Spec: spec}}
}

// updateCommentMarker is the hidden line of a once-per-revision comment of
// kind on an update pull request.
type updateCommentMarker struct{ kind, tag string }

func (m updateCommentMarker) String() string {
	return fmt.Sprintf("<!-- porchbot:update-%s %s -->", m.kind, m.tag)
}

// ref is the claim of the comment in pull request n.
func (m updateCommentMarker) ref(n int) string {
	return fmt.Sprintf("refs/porchbot/comments/%d/update-%s/%s", n, m.kind, m.tag)
}

func heldMarker(plan *Plan) updateCommentMarker {
	return updateCommentMarker{"held", plan.Upstream.Tag()}
}

func refusedMarker(plan *Plan) updateCommentMarker {
	return updateCommentMarker{"refused", plan.Upstream.Tag()}
}

// heldComment says what the update to a new revision would have changed on
// a branch someone else pushed to.
func heldComment(plan *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nUpstream %s published %s. %s has commits porchbot did not make, so porchbot did not overwrite it. "+
		"The update would have changed:\n\n", heldMarker(plan), mdquote.Code(plan.Upstream.Package), mdquote.Code(plan.Upstream.Tag()), mdquote.Code(plan.Branch))
	if plan.Resources.Empty() {
		b.WriteString("No resource.\n")
	}
	publish.RelNotesResources(&b, "Added", plan.Resources.Added)
	publish.RelNotesResources(&b, "Changed", plan.Resources.Changed)
	publish.RelNotesResources(&b, "Removed", plan.Resources.Removed)
	if len(plan.Conflicts) > 0 {
		b.WriteString("\nConflicts:\n\n" + ConflictsMarkdown(plan.Conflicts))
	}
	fmt.Fprintf(&b, "\nDelete the branch (or close this pull request and delete it) and comment %s for porchbot's update.\n", mdquote.Code("/porch upgrade "+plan.Package))
	return b.String()
}

// commentOnce posts body on pull request n once: the comment is claimed
// by creating the marker's ref (on at, any commit of the repository);
// whoever finds it created already (another replica, an earlier run)
// does not comment. Without Claims, porchbot's comments are searched for
// the marker instead.
func commentOnce(ctx context.Context, s *core.Session, api API, n int, at plumbing.Hash, marker updateCommentMarker, body string) (bool, error) {
	owner, repo := s.Repo.Owner, s.Repo.Name
	if api.Claims != nil {
		err := api.Claims.CreateRef(ctx, owner, repo, marker.ref(n), at.String())
		if publish.PublishAlreadyExists(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("claim the comment %s on #%d: %w", marker.ref(n), n, err)
		}
	} else {
		cs, _, err := api.Proposal.Issues.ListComments(ctx, owner, repo, n, hub.CommentQuery{Page: hub.Page{PerPage: 100}})
		if err != nil {
			return false, fmt.Errorf("comments of #%d: %w", n, err)
		}
		for _, c := range cs {
			if api.Proposal.IsBot(c.User) && strings.Contains(c.Body, marker.String()) {
				return false, nil
			}
		}
	}
	if !strings.Contains(body, marker.String()) {
		body = marker.String() + "\n" + body
	}
	if _, err := api.Proposal.Issues.CreateComment(ctx, owner, repo, n, body); err != nil {
		return false, fmt.Errorf("comment on #%d: %w", n, err)
	}
	return true, nil
}

// updateRequester is who asked for an update: the /porch upgrade commenter,
// or nobody but porchbot for a publish (every approver's approval counts
// then).
func updateRequester(api API, requestedBy string) (user, how string) {
	if requestedBy != "" {
		return requestedBy, "/porch upgrade"
	}
	return api.Proposal.BotLoginOrDefault(), "an upstream publish"
}

// refreshedRequester carries the requester record of an open update pull
// request over to its new head: the user of its valid body record, signed
// again for head. A pull request without one (its record deleted, or made
// with a comment record) gets none: a refresh never names a requester the
// pull request did not have.
func refreshedRequester(ctx context.Context, ds *core.Session, api API, open *hub.Pull, head plumbing.Hash) string {
	key := api.Proposal.RecordKey
	if len(key) == 0 || head.IsZero() {
		return ""
	}
	user := approval.BodyRequester(key, ds.Repo.FullName(), *open, approval.OwnCommitsOf(ctx, ds, open.Head.SHA, ds.DeploymentHead))
	if user == "" {
		return ""
	}
	return "\n" + approval.RequesterAtRecord(key, ds.Repo.FullName(), open.Head.Ref, head.String(), user) + "\n"
}
