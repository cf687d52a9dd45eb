package proposals

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// Proposals (SPEC §1, §5): an open pull request from a draft branch
// drafts/<package>/<workspace> into the deployment branch, labelled
// porch/proposed. OpenProposal opens one for /porch propose;
// OnProposalEvent labels and judges one on pull_request events;
// EvaluateApproval (approval.go) posts porchbot/approval; Reject closes one.

// changesLabel is the lifecycle label of a branch proposal: deletion when
// every package it changes is removed.
func changesLabel(changes []approval.PackageChange) string {
	for _, c := range changes {
		if c.Kind != core.LandingDeleted {
			return packages.LabelProposed
		}
	}
	return packages.LabelDeletionProposed
}

// proposalPackageDir is the repository path of package pkg (packages.root
// joined with the package name).
func proposalPackageDir(s *core.Session, pkg string) string {
	return path.Join(packages.NormalizeRoot(s.Config.Packages.Root), pkg)
}

// proposalMarker is the machine-readable note in the body of a pull
// request the bot opened: which draft it proposes. It decides nothing (the
// body is the author's to edit); who asked is the requester record
// (approval_requester.go).
type proposalMarker struct {
	Package   string `json:"package"`
	Workspace string `json:"workspace"`
}

// propDraftCommit is one commit of a draft that the deployment branch lacks.
type propDraftCommit struct {
	Hash    plumbing.Hash
	Subject string
	Author  string
	Bot     bool
}

// propMaxCommitsWalked bounds the history walk of propDraftCommits.
const propMaxCommitsWalked = 1000

// propDraftCommits lists the commits of head not reachable from base (git log
// base..head), newest first, at most propMaxCommitsWalked.
func propDraftCommits(ctx context.Context, s *core.Session, head, base plumbing.Hash) ([]propDraftCommit, error) {
	var out []propDraftCommit
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		inBase := map[plumbing.Hash]bool{}
		if !base.IsZero() {
			bc, err := repo.CommitObject(base)
			if err != nil {
				return fmt.Errorf("read %s: %w", base, err)
			}
			iter := object.NewCommitPreorderIter(bc, nil, nil)
			err = iter.ForEach(func(c *object.Commit) error {
				inBase[c.Hash] = true
				return nil
			})
			if err != nil {
				return fmt.Errorf("walk %s: %w", base, err)
			}
		}
		hc, err := repo.CommitObject(head)
		if err != nil {
			return fmt.Errorf("read %s: %w", head, err)
		}
		iter := object.NewCommitPreorderIter(hc, inBase, nil)
		defer iter.Close()
		for len(out) < propMaxCommitsWalked {
			c, err := iter.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("walk %s: %w", head, err)
			}
			if inBase[c.Hash] {
				continue
			}
			subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
			out = append(out, propDraftCommit{Hash: c.Hash, Subject: subject, Author: c.Author.Name,
				Bot: c.Author.Email == core.DefaultIdentity.Email || strings.HasSuffix(c.Author.Name, "[bot]")})
		}
		return nil
	})
	return out, err
}

// proposalTitle follows GitHub: the subject of the draft's only commit
// (bot commits such as "Render <package>" aside), prefixed with the package
// unless it names it already; otherwise "<package>: <workspace>".
func proposalTitle(pkg, ws string, commits []propDraftCommit) string {
	var human []propDraftCommit
	for _, c := range commits {
		if !c.Bot {
			human = append(human, c)
		}
	}
	if len(human) == 1 && human[0].Subject != "" {
		subj := human[0].Subject
		if !strings.HasPrefix(subj, pkg+":") && !strings.HasPrefix(subj, pkg+" ") {
			subj = pkg + ": " + subj
		}
		return subj
	}
	return pkg + ": " + ws
}

// propMaxBodyCommits bounds the commits listed in a proposal's body.
const propMaxBodyCommits = 50

func proposalBody(s *core.Session, pkg, ws, requester string, commits []propDraftCommit, nextRev int) string {
	var b strings.Builder
	branch := packages.DraftBranch(pkg, ws)
	fmt.Fprintf(&b, "Proposes package %s, workspace %s (draft branch %s), for %s.\n\n",
		mdquote.Code(pkg), mdquote.Code(ws), mdquote.Code(branch), mdquote.Code(s.DeploymentBranch))
	if s.Config.Lifecycle.PublishOn == config.PublishOnMerge {
		fmt.Fprintf(&b, "Merging publishes the package's next revision (%s at the time of proposing).\n\n",
			mdquote.Code(packages.TagName(pkg, nextRev)))
	}
	fmt.Fprintf(&b, "### Commits (%d)\n\n", len(commits))
	for i, c := range commits {
		if i == propMaxBodyCommits {
			fmt.Fprintf(&b, "- … and %d more\n", len(commits)-propMaxBodyCommits)
			break
		}
		fmt.Fprintf(&b, "- %s %s — %s\n", mdquote.Code(words.ShortSHA(c.Hash.String())), mdquote.Text(c.Subject), mdquote.Text(c.Author))
	}
	b.WriteString("\n")
	if requester != "" {
		fmt.Fprintf(&b, "Proposed by @%s with `/porch propose`. ", requester)
	}
	b.WriteString("Approve with a review or `/porch approve`; reject with `/porch reject [reason]` (the draft branch stays).\n\n")
	b.WriteString(approval.FormatBotMarker("proposal", proposalMarker{Package: pkg, Workspace: ws}) + "\n")
	return b.String()
}

// propNextRevision is N+1 for the highest published revision N of pkg in the
// cache's tags.
func propNextRevision(ctx context.Context, s *core.Session, pkg string) (int, error) {
	refs, err := s.Git.ListRefs(ctx, "refs/tags/"+pkg+"/v")
	if err != nil {
		return 0, fmt.Errorf("list tags of %s: %w", pkg, err)
	}
	tags := make([]string, 0, len(refs))
	for _, r := range refs {
		tags = append(tags, strings.TrimPrefix(r.Name().String(), "refs/tags/"))
	}
	return packages.Next(packages.Revisions(tags)[pkg]), nil
}

// findOpenProposal returns the open pull request from branch into the
// deployment branch, if any (one call).
func findOpenProposal(ctx context.Context, s *core.Session, api approval.ProposalAPI, branch string) (hub.Pull, error) {
	prs, _, err := api.Pulls.ListPulls(ctx, s.Repo.Owner, s.Repo.Name, hub.PullQuery{
		State: "open", Head: s.Repo.Owner + ":" + branch, Base: s.DeploymentBranch,
		Page: hub.Page{PerPage: 10}})
	if err != nil {
		return hub.Pull{}, fmt.Errorf("list pull requests of %s: %w", branch, err)
	}
	for _, pr := range prs {
		if pr.Head.Ref == branch && pr.Base.Ref == s.DeploymentBranch {
			return pr, nil
		}
	}
	return hub.Pull{}, nil
}

// ensureProposedLabel adds porch/proposed unless pr carries it; it reports
// whether it called GitHub.
func ensureProposedLabel(ctx context.Context, s *core.Session, api approval.ProposalAPI, pr *hub.Pull) (bool, error) {
	return ensureProposalLabel(ctx, s, api, pr, packages.LabelProposed)
}

// ensureProposalLabel adds label unless pr carries it (and notes it on
// pr); it reports whether it called GitHub.
func ensureProposalLabel(ctx context.Context, s *core.Session, api approval.ProposalAPI, pr *hub.Pull, label string) (bool, error) {
	if pr.HasLabel(label) {
		return false, nil
	}
	if err := api.Issues.AddLabels(ctx, s.Repo.Owner, s.Repo.Name, pr.Number, []string{label}); err != nil {
		return true, fmt.Errorf("label #%d %s: %w", pr.Number, label, err)
	}
	pr.Labels = append(pr.Labels, label)
	return true, nil
}

// proposalLabel is the lifecycle label of an open proposal of pkg:
// porch/deletion-proposed when its head removes the package (Porch's
// DeletionProposed; a /porch delete draft, or a draft someone emptied),
// porch/proposed otherwise. The two are exclusive: a deletion proposal
// labelled porch/proposed too would be listed as both.
func proposalLabel(ctx context.Context, s *core.Session, pr hub.Pull, pkg string) (string, error) {
	if hub.HasLabel(pr.Labels, packages.LabelDeletionProposed) {
		return packages.LabelDeletionProposed, nil
	}
	head := strings.ToLower(pr.Head.SHA)
	if len(head) != 40 || !plumbing.IsHash(head) {
		return packages.LabelProposed, nil
	}
	if err := approval.EnsureCommit(ctx, s, head, pr.Head.Ref); err != nil {
		return "", err
	}
	st, err := deletionState(ctx, s, plumbing.NewHash(head), proposalPackageDir(s, pkg))
	if err != nil {
		return "", err
	}
	if !st.Exists() {
		return packages.LabelDeletionProposed, nil
	}
	return packages.LabelProposed, nil
}

// OpenProposal opens the proposal of the draft pkg/workspace for
// `/porch propose`: a pull request from drafts/<pkg>/<workspace> into the
// deployment branch, labelled porch/proposed, whose body names the package,
// the workspace, the draft's commits and the requester, and the requester
// record (approval_requester.go) that makes the requester its author for
// the self-approval rule. It is idempotent: an open pull
// request from that branch is returned (and labelled if it is not).
//
// Errors: ErrNoDraftBranch, ErrNothingToPropose (wrapped), invalid names,
// GitHub errors (wrapped).
func OpenProposal(ctx context.Context, s *core.Session, api approval.ProposalAPI, pkg, workspace, requester string) (hub.Pull, error) {
	if err := packages.ValidateName(pkg); err != nil {
		return hub.Pull{}, fmt.Errorf("propose: %w", err)
	}
	if err := packages.ValidateWorkspace(workspace); err != nil {
		return hub.Pull{}, fmt.Errorf("propose: %w", err)
	}
	branch := packages.DraftBranch(pkg, workspace)
	log := s.Log.WithFields(logrus.Fields{"package": pkg, "workspace": workspace, "ref": branch, "requester": requester})
	head, err := s.ResolveRef(ctx, "refs/heads/"+branch)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) {
			return hub.Pull{}, fmt.Errorf("propose %s: %w: %s", branch, approval.ErrNoDraftBranch, branch)
		}
		return hub.Pull{}, fmt.Errorf("propose %s: %w", branch, err)
	}
	// No lookup first: creating answers 422 when the branch has an open
	// pull request, and createProposal then finds it (one call saved on
	// every new proposal, one spent on a repeated /porch propose).
	commits, err := propDraftCommits(ctx, s, head, s.DeploymentHead)
	if err != nil {
		return hub.Pull{}, fmt.Errorf("propose %s: commits: %w", branch, err)
	}
	if len(commits) == 0 {
		return hub.Pull{}, fmt.Errorf("propose %s: %w (it is contained in %s)", branch, approval.ErrNothingToPropose, s.DeploymentBranch)
	}
	next, err := propNextRevision(ctx, s, pkg)
	if err != nil {
		return hub.Pull{}, fmt.Errorf("propose: %w", err)
	}
	pr, created, err := CreateProposal(ctx, s, api, branch, hub.NewPull{
		Title: proposalTitle(pkg, workspace, commits),
		Head:  branch, Base: s.DeploymentBranch,
		Body: proposalBody(s, pkg, workspace, requester, commits, next),
	})
	if err != nil {
		return hub.Pull{}, err
	}
	log = log.WithField("pull_request", pr.Number)
	if created {
		log.Info("proposal opened")
		if err := approval.RecordRequester(ctx, s, api.Issues, api.RecordKey, pr.Number, requester, "/porch propose"); err != nil {
			return pr, fmt.Errorf("propose: %w", err)
		}
	} else {
		log.Info("proposal already open")
		if err := approval.EnsureRequester(ctx, s, api, pr, requester, "/porch propose"); err != nil {
			return pr, fmt.Errorf("propose: %w", err)
		}
	}
	if _, err := ensureProposedLabel(ctx, s, api, &pr); err != nil {
		return pr, fmt.Errorf("propose: %w", err)
	}
	return pr, nil
}

// CreateProposal creates the pull request; when GitHub answers that one
// already exists (another replica, a redelivery), it returns that one.
// created is false when it found the open one.
func CreateProposal(ctx context.Context, s *core.Session, api approval.ProposalAPI, branch string, np hub.NewPull) (hub.Pull, bool, error) {
	pr, err := api.Pulls.CreatePull(ctx, s.Repo.Owner, s.Repo.Name, np)
	if err == nil {
		return pr, true, nil
	}
	if hub.IsUnprocessable(err) {
		if existing, lerr := findOpenProposal(ctx, s, api, branch); lerr == nil && existing.Number != 0 {
			return existing, false, nil
		}
	}
	return hub.Pull{}, false, fmt.Errorf("propose %s: create pull request: %w", branch, err)
}

// OnProposalEvent handles pull_request opened, reopened, synchronize and
// ready_for_review: for a proposal (open, not a GitHub draft pull request,
// into the deployment branch, from a draft branch or changing a package)
// it makes sure the label porch/proposed is on (no call when the event's
// pull request already carries it), or porch/deletion-proposed when the
// head removes the package, then evaluates the approval policy and posts
// porchbot/approval (EvaluateApproval). A pull request that is not a
// proposal gives (nil, nil).
func OnProposalEvent(ctx context.Context, s *core.Session, api approval.ProposalAPI, pr hub.Pull) (*approval.Outcome, error) {
	if !approval.IntoDeployment(s, pr) || pr.State != "open" || pr.Draft {
		return nil, nil
	}
	var label string
	if pkg, _, ok := approval.ParseProposal(s, pr); ok {
		var err error
		if label, err = proposalLabel(ctx, s, pr, pkg); err != nil {
			return nil, fmt.Errorf("proposal #%d: %w", pr.Number, err)
		}
	} else {
		if err := approval.EnsurePullRequestHead(ctx, s, pr); err != nil {
			return nil, fmt.Errorf("proposal #%d: %w", pr.Number, err)
		}
		changes, err := approval.ProposalChanges(ctx, s, pr)
		if err != nil {
			return nil, err
		}
		if len(changes) == 0 {
			return nil, nil // changes no package: not a proposal
		}
		label = changesLabel(changes)
	}
	labelled := false
	// A proposal the bot opened itself (/porch propose, deletions) was
	// labelled right after its creation; its "opened" event shows it before
	// that. The resync labels it if that call failed.
	if !(api.Opened && api.IsBot(pr.User)) {
		var err error
		if labelled, err = ensureProposalLabel(ctx, s, api, &pr, label); err != nil {
			return nil, fmt.Errorf("proposal #%d: %w", pr.Number, err)
		}
	}
	out, err := approval.EvaluateApproval(ctx, s, api, pr)
	if out != nil {
		out.Labelled = labelled
	}
	return out, err
}
