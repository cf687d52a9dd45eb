package proposals

// Deletion proposals (/porch delete <pkg>; Porch's DeletionProposed): a
// draft branch whose one commit removes the package directory, and a pull
// request labelled porch/deletion-proposed. When it merges, Publish sees the
// package removed: no tag is created, the package's revision tags stay, and
// the pull request is told so (publish.go).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
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

// DeletionTaskType is the task type in the kpt trailer of a deletion
// commit (Porch has no task for it; deletions are not tasks there).
const DeletionTaskType = "delete"

// deletionWorkspace is the workspace of deletion drafts; "delete-2",
// "delete-3", … when taken by a branch that is not a deletion.
const (
	DeletionWorkspace   = "delete"
	maxDeletionSuffixes = 9
)

// ErrDeletionNoPackage reports a /porch delete of something that is not a
// top-level package on the deployment branch.
var ErrDeletionNoPackage = errors.New("no such package on the deployment branch")

// DeletionPulls are the pull request calls (a part of s.Hub).
type DeletionPulls interface {
	CreatePull(ctx context.Context, owner, repo string, p hub.NewPull) (hub.Pull, error)
	ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error)
}

// DeletionIssues are the label and requester record calls (a part of s.Hub).
type DeletionIssues interface {
	AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error
	approval.RequesterComments
}

// DeletionAPI is what a deletion proposal needs from GitHub. RecordKey
// signs the requester record (ProposalAPI.RecordKey).
type DeletionAPI struct {
	Pulls     DeletionPulls
	Issues    DeletionIssues
	RecordKey []byte
}

// NewDeletionAPI is the DeletionAPI of an installation's API.
func NewDeletionAPI(api hub.API) DeletionAPI {
	return DeletionAPI{Pulls: api, Issues: api}
}

// ProposeDeletion opens (or finds) the deletion proposal of pkg, requested
// by requester: branch drafts/<pkg>/delete (suffixed -2, -3, … when that
// branch exists and does not delete the package) with a commit removing the
// package directory, and a pull request into the deployment branch
// labelled porch/deletion-proposed. Asking again while a deletion draft
// exists returns its open pull request instead of opening a second one.
// REST calls: 3 (create, requester record, label), plus 1 list when a
// deletion draft exists.
func ProposeDeletion(ctx context.Context, s *core.Session, api DeletionAPI, pkg, requester string) (hub.Pull, error) {
	if err := packages.ValidateName(pkg); err != nil {
		return hub.Pull{}, fmt.Errorf("propose deletion: %w", err)
	}
	log := s.Log.WithFields(logrus.Fields{"package": pkg, "requester": requester})
	dir := core.PackageDir(s.Config.Packages.Root, pkg)
	head, err := s.ResolveRef(ctx, "refs/heads/"+s.DeploymentBranch)
	if err != nil {
		return hub.Pull{}, fmt.Errorf("propose deletion of %s: %s: %w", pkg, s.DeploymentBranch, err)
	}
	ok, err := core.LandingIsTopLevel(ctx, s, head, dir)
	if err != nil {
		return hub.Pull{}, fmt.Errorf("propose deletion of %s: %w", pkg, err)
	}
	if !ok {
		return hub.Pull{}, fmt.Errorf("propose deletion of %s: %w", pkg, ErrDeletionNoPackage)
	}

	retried := false
	for i := 1; i <= maxDeletionSuffixes; i++ {
		ws := DeletionWorkspace
		if i > 1 {
			ws = fmt.Sprintf("%s-%d", DeletionWorkspace, i)
		}
		branch := packages.DraftBranch(pkg, ws)
		tip, err := s.ResolveRef(ctx, "refs/heads/"+branch)
		switch {
		case err == nil:
			st, err := deletionState(ctx, s, tip, dir)
			if err != nil {
				return hub.Pull{}, fmt.Errorf("propose deletion of %s: %w", pkg, err)
			}
			if st.Exists() {
				continue // a branch of that name that does not delete the package
			}
			log.WithField("branch", branch).Info("deletion draft exists; reusing it")
			return openDeletionPR(ctx, s, api, pkg, branch, requester, true)
		case !errors.Is(err, gitstore.ErrNotFound):
			return hub.Pull{}, fmt.Errorf("propose deletion of %s: %w", pkg, err)
		}
		msg := fmt.Sprintf("Delete package %s\n\nRemove %s from %s", pkg, dir, s.DeploymentBranch)
		if requester != "" {
			msg += " (requested by @" + requester + ")"
		}
		res, err := s.CommitUnderLease(ctx, core.Identity{}, branch, plumbing.ZeroHash, 2, func(_ context.Context, tip plumbing.Hash) (*core.PackageCommit, error) {
			if !tip.IsZero() {
				return nil, nil // someone created the branch meanwhile (refetched): look at it again
			}
			return &core.PackageCommit{Parent: head,
				Dir: dir, Files: nil, Message: msg + ".",
				Trailer: packages.Trailer{Package: pkg, WorkspaceName: ws, Task: &packages.Task{Type: DeletionTaskType}}}, nil
		})
		if err == nil && !res.Pushed {
			if retried {
				return hub.Pull{}, fmt.Errorf("propose deletion of %s: %s was created meanwhile, again", pkg, branch)
			}
			retried = true
			i--
			continue
		}
		if err != nil {
			return hub.Pull{}, fmt.Errorf("propose deletion of %s: %w", pkg, err)
		}
		log.WithField("branch", branch).Info("deletion draft pushed")
		return openDeletionPR(ctx, s, api, pkg, branch, requester, false)
	}
	return hub.Pull{}, fmt.Errorf("propose deletion of %s: drafts/%s/%s … -%d are all taken", pkg, pkg, DeletionWorkspace, maxDeletionSuffixes)
}

// openDeletionPR opens the pull request of a deletion draft (or finds the
// open one when existing) and labels it.
func openDeletionPR(ctx context.Context, s *core.Session, api DeletionAPI, pkg, branch, requester string, existing bool) (hub.Pull, error) {
	owner, repo := s.Repo.Owner, s.Repo.Name
	var pr hub.Pull // Number 0: none found
	if existing {
		prs, _, err := api.Pulls.ListPulls(ctx, owner, repo, hub.PullQuery{State: "open",
			Head: owner + ":" + branch, Base: s.DeploymentBranch})
		if err != nil {
			return hub.Pull{}, fmt.Errorf("find the deletion proposal of %s: %w", pkg, err)
		}
		for _, p := range prs {
			if p.Head.Ref == branch {
				pr = p
				break
			}
		}
	}
	if pr.Number == 0 {
		var err error
		body, err := deletionBody(ctx, s, pkg, requester)
		if err != nil {
			return hub.Pull{}, fmt.Errorf("the deletion proposal of %s: %w", pkg, err)
		}
		pr, err = api.Pulls.CreatePull(ctx, owner, repo, hub.NewPull{
			Title: "Delete package " + pkg, Head: branch,
			Base: s.DeploymentBranch, Body: body})
		if err != nil {
			return hub.Pull{}, fmt.Errorf("open the deletion proposal of %s: %w", pkg, err)
		}
		// Who asked, where only the bot can write: their approval of the
		// deletion counts only with approvals.allowSelfApproval.
		if err := approval.RecordRequester(ctx, s, api.Issues, api.RecordKey, pr.Number, requester, "/porch delete "+pkg); err != nil {
			return pr, err
		}
	}
	if !DeletionHasLabel(pr, packages.LabelDeletionProposed) {
		if err := api.Issues.AddLabels(ctx, owner, repo, pr.Number, []string{packages.LabelDeletionProposed}); err != nil {
			return pr, fmt.Errorf("label #%d %s: %w", pr.Number, packages.LabelDeletionProposed, err)
		}
		pr.Labels = append(pr.Labels, packages.LabelDeletionProposed)
	}
	s.Log.WithFields(logrus.Fields{"package": pkg, "pull_request": pr.Number}).Info("deletion proposed")
	return pr, nil
}

// deletionBody says what merging does and, when downstream packages
// track pkg, lists them (named as this repository's readers may see them)
// with what the deletion guard asks (approval_orphans.go).
func deletionBody(ctx context.Context, s *core.Session, pkg, requester string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Proposes deleting package %s", mdquote.Code(pkg))
	if requester != "" {
		fmt.Fprintf(&b, " (requested by @%s with %s)", requester, mdquote.Code("/porch delete "+pkg))
	}
	fmt.Fprintf(&b, ".\n\nMerging removes %s from %s. No revision is published for a deletion; "+
		"the package's published revisions stay available as their %s tags.\n\n"+
		"Close this pull request to keep the package.\n", mdquote.Code(core.PackageDir(s.Config.Packages.Root, pkg)), mdquote.Code(s.DeploymentBranch), mdquote.Code(pkg+"/v<N>"))
	deps, err := deletionDependents(ctx, s, pkg)
	if err != nil || len(deps.All) == 0 {
		return b.String(), err
	}
	b.WriteString("\n### Downstream packages\n\n")
	b.WriteString(deps.Markdown())
	b.WriteString("\nTheir Kptfiles will keep naming an upstream package that is no longer on " + mdquote.Code(s.DeploymentBranch) +
		" (its published revisions stay); they get no more updates. ")
	if s.Config.Lifecycle.DeletionWithDownstreams == config.DeletionAllow {
		b.WriteString("This repository allows it without acknowledgement (" + mdquote.Code("lifecycle.deletionWithDownstreams: "+config.DeletionAllow) + ").\n")
	} else {
		b.WriteString("The deletion is approved only with an approver's " + mdquote.Code("/porch approve --"+approval.OrphanFlag) +
			" (" + mdquote.Code("lifecycle.deletionWithDownstreams: "+config.DeletionRequireAck) + ").\n")
	}
	return b.String(), nil
}

// deletionDependents are the downstream packages of pkg (no REST call).
func deletionDependents(ctx context.Context, s *core.Session, pkg string) (*DependentsReport, error) {
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return nil, err
	}
	return dependentsReport(ctx, s, pkg, tags.Published()), nil
}

// DeletionHasLabel reports whether pr carries label name.
func DeletionHasLabel(pr hub.Pull, name string) bool { return pr.HasLabel(name) }

func deletionState(ctx context.Context, s *core.Session, commit plumbing.Hash, dir string) (core.LandingState, error) {
	var st core.LandingState
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		st, err = s.Walker(ctx, repo).State(commit, dir)
		return err
	})
	return st, err
}
