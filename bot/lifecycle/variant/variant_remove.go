package variant

// A variant's downstream that no entry targets any more (the target
// removed from the entry, or the entry gone): with deletionPolicy delete,
// a deletion proposal (delete.go, labelled porch/variant too); with
// orphan, a proposal drafts/<pkg>/variant-orphan that removes the
// ownership annotations and nothing else. A pull request of other variant
// work open for the package is closed: its target is gone.

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/variants"
)

// variantRemovalMarker is the hidden line of a deletion proposal a variant
// opened.
const variantRemovalMarker = "<!-- porchbot:variant-removal -->"

func (c *Controller) delete(ctx context.Context, ds *core.Session, a variants.Action) (int, error) {
	api := c.Updates.API(ds)
	dapi := proposals.DeletionAPI{Pulls: api.Proposal.Pulls, Issues: api.Proposal.Issues, RecordKey: api.Proposal.RecordKey}
	pr, err := proposals.ProposeDeletion(ctx, ds, dapi, a.Package, "")
	if err != nil {
		return 0, err
	}
	if !proposals.DeletionHasLabel(pr, variants.Label) {
		if err := api.Proposal.Issues.AddLabels(ctx, ds.Repo.Owner, ds.Repo.Name, pr.Number, []string{variants.Label}); err != nil {
			return pr.Number, fmt.Errorf("label #%d: %w", pr.Number, err)
		}
	}
	if !strings.Contains(pr.Body, variantRemovalMarker) {
		body := pr.Body + "\n" + variantRemovalMarker + "\n" + removalNote(a)
		if _, err := api.Proposal.Pulls.EditPull(ctx, ds.Repo.Owner, ds.Repo.Name, pr.Number, hub.PullEdit{Body: body}); err != nil {
			return pr.Number, fmt.Errorf("edit #%d: %w", pr.Number, err)
		}
	}
	return pr.Number, c.closeSuperseded(ctx, ds, a, pr.Number)
}

func (c *Controller) orphan(ctx context.Context, ds *core.Session, a variants.Action) (int, error) {
	api := c.Updates.API(ds)
	dir := rendercheck.PackageDir(ds.Config, a.Package)
	local, err := core.LoadPackage(ctx, ds.Git, ds.DeploymentHead, dir)
	if err != nil {
		return 0, fmt.Errorf("orphan %s: %w", a.Package, err)
	}
	files, err := variants.Disown(local)
	if err != nil {
		return 0, core.RequestErrorf("%v", err)
	}
	branch := packages.DraftBranch(a.Package, orphanWorkspace)
	head, err := updates.BranchHead(ctx, ds, branch)
	if err != nil {
		return 0, err
	}
	msg := fmt.Sprintf("Orphan %s\n\nRemove the ownership of the variant of %s in %s (deletionPolicy orphan): "+
		"the package stays as it is and is %s's own.", a.Package, a.Owner.Package, a.Owner.Upstream, ds.Repo.FullName())
	res, err := ds.CommitUnderLease(ctx, api.Identity, branch, head, 3, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		if !head.IsZero() {
			own, err := ownDraft(ctx, ds, head, api.Identity)
			if err != nil {
				return nil, err
			}
			if !own {
				return nil, core.RequestErrorf("%s has commits porchbot did not make: not overwritten", mdquote.Code(branch))
			}
			if got, err := readVariantPackage(ctx, ds, head, a.Package); err == nil && got.Owner == nil {
				return nil, nil // proposed already
			}
		}
		return &core.PackageCommit{Parent: ds.DeploymentHead, Dir: dir, Files: files, Message: msg, Exclusive: head.IsZero(),
			Trailer: packages.Trailer{Package: a.Package, WorkspaceName: orphanWorkspace, Revision: "0",
				Task: &packages.Task{Type: packages.TaskEdit}}}, nil
	})
	if err != nil {
		return 0, fmt.Errorf("orphan %s: %w", a.Package, err)
	}
	out := &updates.Outcome{Head: res.Head, Branch: branch}
	title := fmt.Sprintf("Variant: orphan %s", a.Package)
	body := fmt.Sprintf("Proposes removing %s and %s from %s's Kptfile: the package stays, and is no longer kept by a variant.\n\n%s",
		mdquote.Code(variants.OwnerAnnotation), mdquote.Code(variants.SpecAnnotation), mdquote.Code(a.Package), removalNote(a))
	if err := updates.OpenUpdatePR(ctx, ds, api, a.Package, branch, title, body, "", []string{packages.LabelProposed, variants.Label}, out); err != nil {
		return 0, err
	}
	return out.PRNumber(), c.closeSuperseded(ctx, ds, a, out.PRNumber())
}

func removalNote(a variants.Action) string {
	return fmt.Sprintf("### Variant\n\nThe variant of %s in %s (downstream %s) no longer targets %s: no `variants:` entry there names it "+
		"(deletionPolicy %s). Close this pull request to keep the package as it is.\n",
		mdquote.Code(a.Owner.Package), a.Owner.Upstream, mdquote.Code(updates.FirstNonEmpty(a.Owner.Downstream, a.Owner.Package)), a.Target,
		mdquote.Code(a.Owner.OnRemove))
}

// closeSuperseded closes the open pull request of other variant work on
// the package (an update, a clone), replaced by the removal n.
func (c *Controller) closeSuperseded(ctx context.Context, ds *core.Session, a variants.Action, n int) error {
	if !a.Refresh || a.PullRequest == 0 || a.PullRequest == n {
		return nil
	}
	api := c.Updates.API(ds)
	if _, err := api.Proposal.Issues.CreateComment(ctx, ds.Repo.Owner, ds.Repo.Name, a.PullRequest, fmt.Sprintf("Superseded by #%d: the variant no longer targets this repository.", n)); err != nil {
		return fmt.Errorf("comment on #%d: %w", a.PullRequest, err)
	}
	if _, err := api.Proposal.Pulls.EditPull(ctx, ds.Repo.Owner, ds.Repo.Name, a.PullRequest, hub.PullEdit{State: "closed"}); err != nil {
		return fmt.Errorf("close #%d: %w", a.PullRequest, err)
	}
	return nil
}
