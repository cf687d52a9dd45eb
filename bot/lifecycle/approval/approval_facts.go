package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/words"
)

// ProposalFacts are the facts of a pull request the approval verdict is
// decided on (in the manner of policy-bot): who asked for it, every package
// its head changes with their content digests, the votes with the digests
// at the commits they were given on, the readiness gates, the render
// check, and who may approve. gatherProposalFacts reads them from GitHub
// and the git cache; StaticProposalFacts is a value for tests.
type ProposalFacts interface {
	// Requester is who asked for the change (ProposalRequester): their
	// approval is self-approval.
	Requester() string
	// Head is the head commit judged.
	Head() string
	// Packages are every package the head changes against its merge base
	// with the deployment branch, with their content digests at Head.
	Packages() []PackageChange
	// Gates are the readiness gates of those packages at Head.
	Gates() []GateStatus
	// Votes are the approvals and the reviews that cancel them, with
	// Digest, Digests and SameTrees filled (Allowed is decided by Verdict).
	Votes() []Vote
	// Render is the render check's state on Head.
	Render() rendercheck.RenderState
	// Approver reports whether user may approve under the policy, and why
	// not.
	Approver(ctx context.Context, user string) (bool, string, error)
	// Orphans are the packages Head deletes that downstream packages
	// track, when lifecycle.deletionWithDownstreams requires their
	// acknowledgement (approval_orphans.go); none otherwise.
	Orphans() []OrphanedPackage
}

// Verdict is the one decision on a proposal's approval, used by the
// porchbot/approval check and by publishing at landing: it resolves the
// approver status of the users whose approval could count (one lookup each
// at most) and applies Evaluate. It returns the inputs it judged too.
func Verdict(ctx context.Context, policy config.Approvals, f ProposalFacts) (Result, Inputs, error) {
	in := Inputs{Author: f.Requester(), Head: strings.ToLower(f.Head()), Packages: f.Packages(),
		Gates: f.Gates(), Render: f.Render(), Orphans: f.Orphans()}
	in.HeadDigest = proposalDigestOf(in.Packages)
	in.Votes = append([]Vote(nil), f.Votes()...)
	allowed := map[string]approverAnswer{}
	for _, u := range ApproverCandidates(policy, in) {
		ok, note, err := f.Approver(ctx, u)
		if err != nil {
			return Result{}, in, fmt.Errorf("approver %s: %w", u, err)
		}
		allowed[LoginKey(u)] = approverAnswer{allowed: ok, note: note}
	}
	for i := range in.Votes {
		a := allowed[LoginKey(in.Votes[i].User)]
		in.Votes[i].Allowed, in.Votes[i].Note = a.allowed, a.note
	}
	return Evaluate(policy, in), in, nil
}

// proposalDigestOf is the proposal digest of packages at the head.
func proposalDigestOf(pkgs []PackageChange) string {
	m := make(map[string]string, len(pkgs))
	for _, p := range pkgs {
		m[p.Name] = p.Digest
	}
	return ProposalDigest(m)
}

// StaticProposalFacts is ProposalFacts as a value (tests, fuzzing).
// Approvers maps folded logins to whether they may approve; anyone else
// may not.
type StaticProposalFacts struct {
	RequesterLogin string
	HeadCommit     string
	Changes        []PackageChange
	GateList       []GateStatus
	VoteList       []Vote
	RenderState    rendercheck.RenderState
	Approvers      map[string]bool
	OrphanList     []OrphanedPackage
}

// Requester implements ProposalFacts.
func (f StaticProposalFacts) Requester() string { return f.RequesterLogin }

// Head implements ProposalFacts.
func (f StaticProposalFacts) Head() string { return f.HeadCommit }

// Packages implements ProposalFacts.
func (f StaticProposalFacts) Packages() []PackageChange { return f.Changes }

// Gates implements ProposalFacts.
func (f StaticProposalFacts) Gates() []GateStatus { return f.GateList }

// Votes implements ProposalFacts.
func (f StaticProposalFacts) Votes() []Vote { return f.VoteList }

// Render implements ProposalFacts.
func (f StaticProposalFacts) Render() rendercheck.RenderState { return f.RenderState }

// Orphans implements ProposalFacts.
func (f StaticProposalFacts) Orphans() []OrphanedPackage { return f.OrphanList }

// Approver implements ProposalFacts.
func (f StaticProposalFacts) Approver(_ context.Context, user string) (bool, string, error) {
	if f.Approvers[LoginKey(user)] {
		return true, "", nil
	}
	return false, "@" + user + " is not listed", nil
}

// liveProposalFacts are the facts of a pull request read from GitHub and
// the git cache by gatherProposalFacts.
type liveProposalFacts struct {
	StaticProposalFacts
	resolver *ApproverResolver
}

// Approver implements ProposalFacts with the repository's approver lookups.
func (f *liveProposalFacts) Approver(ctx context.Context, user string) (bool, string, error) {
	return f.resolver.Allowed(ctx, user)
}

// GatherProposalFacts reads the facts of pull request pr at head: reviews
// (one call) and the bot's /porch approve records among its comments (one
// call, none when pr has no comment; neither when api.Opened), the
// porchbot/render state on head (no call when this process rendered it,
// else one; none when the head only removes packages), the requester, and from the git cache the
// packages head changes against its merge base with the deployment branch,
// their content digests at head and at every voted commit, and their
// readiness gates. A voted commit the cache lacks uses the digest its
// /porch approve record carries, if any.
//
// base is the deployment branch's commit the head is compared with (its
// merge base with head is where the changes start): the branch's head for
// an open proposal (proposalBase), the landing's first parent at publish.
func GatherProposalFacts(ctx context.Context, s *core.Session, api ProposalAPI, pr hub.Pull, head string, base plumbing.Hash) (*liveProposalFacts, error) {
	n := pr.Number
	log := s.Log.WithFields(logrus.Fields{"pull_request": n, "head": head})
	var reviews []hub.Review
	var comments []hub.Comment
	var err error
	if !api.Opened {
		if reviews, err = propListReviews(ctx, s, api, n); err != nil {
			return nil, err
		}
		// The pull request says how many comments it has: none, no list
		// (an event's copy may be older than a record: then the record is
		// missed, which counts one approval fewer, never one more).
		if pr.Comments == nil || *pr.Comments > 0 {
			if comments, err = ListAllComments(ctx, s, api, n); err != nil {
				return nil, err
			}
		}
	}
	cmdVotes, recorded := commandVotes(api, s.Repo.FullName(), n, comments, log)
	f := &liveProposalFacts{resolver: NewApproverResolver(api, s.Repo, s.Config.Approvals.Approvers)}
	f.HeadCommit = head
	f.RequesterLogin = ProposalRequesterIn(api, s.Repo.FullName(), pr, comments, OwnCommitsOf(ctx, s, head, base))
	f.VoteList = append(reviewVotes(reviews), cmdVotes...)
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		sc, err := newProposalScope(ctx, repo, s.Config.Packages.Root, base, plumbing.NewHash(head), "")
		if err != nil {
			return err
		}
		f.Changes = sc.pkgs
		headTrees := map[string]string{}
		for _, p := range sc.pkgs {
			if p.Tree != "" {
				headTrees[p.Name] = p.Tree
			}
		}
		for i := range f.VoteList {
			v := &f.VoteList[i]
			digests, trees, err := sc.digestsAt(plumbing.NewHash(v.Commit))
			if err != nil {
				return err
			}
			if digests == nil {
				v.Digest = recorded[v.Commit]
				continue
			}
			v.Digest, v.Digests = ProposalDigest(digests), digests
			v.SameTrees = sameTrees(trees, headTrees)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("changes of #%d: %w", n, err)
	}
	for _, p := range f.Changes {
		if p.Tree != "" {
			// Something to render: the render requirement applies (a
			// removal alone renders nothing).
			if f.RenderState, err = RenderStateAt(ctx, s, api, head); err != nil {
				return nil, err
			}
			break
		}
	}
	f.OrphanList = orphanedPackages(ctx, s, f.Changes)
	for _, p := range f.Changes {
		if p.Tree == "" {
			continue // removed: no gates
		}
		gates, err := PackageReadiness(ctx, s, plumbing.NewHash(head), p.Dir)
		if err != nil {
			return nil, err
		}
		for _, g := range gates {
			if len(f.Changes) > 1 {
				g.Package = p.Name
			}
			f.GateList = append(f.GateList, g)
		}
	}
	return f, nil
}

// orphanedPackages are the packages of changes the head removes that
// downstream packages track (the registry's: no REST call), unless
// lifecycle.deletionWithDownstreams allows such deletions.
func orphanedPackages(ctx context.Context, s *core.Session, changes []PackageChange) []OrphanedPackage {
	if s.Config.Lifecycle.DeletionWithDownstreams == config.DeletionAllow {
		return nil
	}
	var out []OrphanedPackage
	for _, p := range changes {
		if p.Kind != core.LandingDeleted {
			continue
		}
		if d := s.DependentsOf(ctx, p.Dir); len(d.All) > 0 {
			out = append(out, OrphanedPackage{Package: p.Name, Downstreams: len(d.All), Partial: !d.Complete})
		}
	}
	return out
}

func sameTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// ProposalBase is the deployment branch's commit a proposal is compared
// with: the branch's head in the cache, else the pull request's base.
func ProposalBase(ctx context.Context, s *core.Session, pr hub.Pull) (plumbing.Hash, error) {
	h, err := s.ResolveRef(ctx, "refs/heads/"+s.DeploymentBranch)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, gitstore.ErrNotFound) {
		return plumbing.ZeroHash, fmt.Errorf("deployment branch %s: %w", s.DeploymentBranch, err)
	}
	if b := pr.Base.SHA; len(b) == 40 && plumbing.IsHash(b) {
		if _, err := s.ResolveRef(ctx, b); err == nil {
			return plumbing.NewHash(b), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// RenderStateAt is the porchbot/render state on head: what this process
// reported, else one check-runs list call. A head with no render check run
// (not rendered yet, or never: its webhooks were lost before a merge) is
// RenderUnknown, as it is without a lister: the requirement applies once a
// render reports (a failed or unfinished one blocks).
func RenderStateAt(ctx context.Context, s *core.Session, api ProposalAPI, head string) (rendercheck.RenderState, error) {
	if st, ok := api.Renders.State(s.Repo.FullName(), head); ok {
		return st, nil
	}
	if api.CheckList == nil {
		return rendercheck.RenderUnknown, nil
	}
	res, _, err := api.CheckList.ListCheckRuns(ctx, s.Repo.Owner, s.Repo.Name, head, hub.CheckQuery{
		Name: core.RenderCheckName, Filter: "all", Page: hub.Page{PerPage: 100}})
	if err != nil {
		return rendercheck.RenderUnknown, fmt.Errorf("render checks of %s: %w", words.CommitOrUnknown(head), err)
	}
	runs := make(map[int64]rendercheck.RenderCheckState, len(res.Runs))
	for _, run := range res.Runs {
		if api.IsOwnRun(run) {
			runs[run.ID] = rendercheck.RunOf(run)
		}
	}
	if len(runs) == 0 {
		return rendercheck.RenderUnknown, nil
	}
	return rendercheck.NewestPerPackage(runs), nil
}
