package variant

// A variant's missing downstream: the upstream revision cloned into a
// draft drafts/<pkg>/variant as `/porch clone` writes it (upstream and
// upstreamLock pinned to the tag's commit, kpt's merge comments), the
// variant's mutations applied, and its proposal opened (porch/proposed,
// porch/variant). The draft then follows the target's own lifecycle:
// rendered on push, approved like any proposal, published on merge.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/variants"
	"github.com/porchbot/porchbot/internal/words"
)

// maxOwnDraftCommits bounds the walk over a variant draft's commits.
const maxOwnDraftCommits = 20

func (c *Controller) clone(ctx context.Context, up, ds *core.Session, f *variantFacts, a variants.Action, v config.Variant) (int, error) {
	pkg := a.Package
	dir := proposals.DraftPackageDir(ds, pkg)
	if err := proposals.CheckNewPackage(ctx, ds, pkg, dir); err != nil {
		return 0, err
	}
	upRev, err := c.upstreamRevision(ctx, up, f, v.Upstream.Package, a.Revision)
	if err != nil {
		return 0, err
	}
	files, err := up.Git.ReadTree(ctx, upRev.Commit, upRev.Dir)
	if err != nil {
		return 0, fmt.Errorf("the upstream %s: %w", upRev.Tag(), err)
	}
	kf, ok := files[kptfile.FileName]
	if !ok {
		return 0, core.RequestErrorf("%s at %s is not a kpt package (no Kptfile)", mdquote.Code(upRev.Dir), mdquote.Code(upRev.Tag()))
	}
	lock := kptfile.GitLock{Repo: upRev.RepoURL(), Directory: upRev.Directory(), Ref: upRev.Tag(), Commit: upRev.Commit.String()}
	if files[kptfile.FileName], err = proposals.ClonedKptfile(kf, path.Base(pkg), lock); err != nil {
		return 0, core.RequestErrorf("the upstream Kptfile of %s: %v", mdquote.Code(upRev.Tag()), err)
	}
	files = proposals.AddKptMergeComments(files)
	m, err := c.mutation(ctx, up, ds, v)
	if err != nil {
		return 0, err
	}
	if files, err = variants.Apply(files, m); err != nil {
		return 0, core.RequestErrorf("%v", err)
	}

	api := c.Updates.API(ds)
	branch := packages.DraftBranch(pkg, variantWorkspace)
	head, err := updates.BranchHead(ctx, ds, branch)
	if err != nil {
		return 0, err
	}
	spec, _ := json.Marshal(map[string]any{"upstreamRef": map[string]any{"type": kptfile.OriginGit,
		"git": map[string]string{"repo": lock.Repo, "ref": lock.Ref, "directory": lock.Directory}}})
	msg := fmt.Sprintf("Clone %s\n\nNew package %s cloned from %s%s@%s (%s) by the variant of %s in %s, draft %s.",
		pkg, pkg, lock.Repo, lock.Directory, lock.Ref, upRev.Commit, v.Upstream.Package, up.Repo.FullName(), variantWorkspace)
	res, err := ds.CommitUnderLease(ctx, api.Identity, branch, head, 3, func(ctx context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
		if !head.IsZero() {
			if holdsClone(ctx, ds, head, a) {
				return nil, nil // the draft holds this clone already (another replica, an earlier run)
			}
			own, err := ownDraft(ctx, ds, head, api.Identity)
			if err != nil {
				return nil, err
			}
			if !own {
				return nil, core.RequestErrorf("%s has commits porchbot did not make: not overwritten (delete the branch for porchbot's clone)", mdquote.Code(branch))
			}
		}
		return &core.PackageCommit{Parent: ds.DeploymentHead, Dir: dir, Files: files, Message: msg, AllowEmpty: true, Exclusive: head.IsZero(),
			Trailer: packages.Trailer{Package: pkg, WorkspaceName: variantWorkspace, Revision: "0",
				Task: &packages.Task{Type: packages.TaskClone, Spec: spec}}}, nil
	})
	if err != nil {
		return 0, fmt.Errorf("clone %s: %w", pkg, err)
	}
	title := fmt.Sprintf("Variant: new package %s from %s", pkg, upRev.Tag())
	body := variantCloneBody(up, ds, a, upRev) + variantNote(up, a, v, m, files)
	if a.Refresh && a.PullRequest != 0 {
		// The entry changed while its clone was proposed: the draft holds
		// the new clone; the body says so.
		if _, err := api.Proposal.Pulls.EditPull(ctx, ds.Repo.Owner, ds.Repo.Name, a.PullRequest, hub.PullEdit{
			Title: title, Body: body}); err != nil {
			return a.PullRequest, fmt.Errorf("edit #%d: %w", a.PullRequest, err)
		}
		return a.PullRequest, nil
	}
	out := &updates.Outcome{Head: res.Head, Branch: branch}
	if err := updates.OpenUpdatePR(ctx, ds, api, pkg, branch, title, body, "", []string{packages.LabelProposed, variants.Label}, out); err != nil {
		return 0, err
	}
	return out.PRNumber(), nil
}

func variantCloneBody(up, ds *core.Session, a variants.Action, upRev updates.UpstreamRevision) string {
	return fmt.Sprintf("Proposes the new package %s, a clone of %s (%s in %s, commit %s), as the variant of %s wants it in %s. "+
		"Its Kptfile's `upstreamLock` pins that commit, as `/porch clone` does; merging publishes %s here.\n",
		mdquote.Code(a.Package), mdquote.Code(upRev.Tag()), mdquote.Code(upRev.Directory()), up.Repo.FullName(), mdquote.Code(words.ShortSHA(upRev.Commit.String())),
		up.Repo.FullName(), ds.Repo.FullName(), mdquote.Code(a.Package+"/v1"))
}

// ownDraft reports whether every commit of the branch at head, down to the
// deployment branch's history, is porchbot's (the clone and its render
// commits): only then is it rebuilt.
func ownDraft(ctx context.Context, ds *core.Session, head plumbing.Hash, id core.Identity) (bool, error) {
	if id.Name == "" {
		id = core.DefaultIdentity
	}
	own := false
	err := ds.Git.With(ctx, func(repo *git.Repository) error {
		dep, err := repo.CommitObject(ds.DeploymentHead)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", ds.DeploymentHead, err)
		}
		h := head
		for i := 0; i < maxOwnDraftCommits; i++ {
			c, err := repo.CommitObject(h)
			if err != nil {
				return fmt.Errorf("read commit %s: %w", h, err)
			}
			if c.Author.Name != id.Name || len(c.ParentHashes) != 1 {
				return nil
			}
			parent, err := repo.CommitObject(c.ParentHashes[0])
			if err != nil {
				return fmt.Errorf("read commit %s: %w", c.ParentHashes[0], err)
			}
			if in, err := parent.IsAncestor(dep); err != nil || in || parent.Hash == dep.Hash {
				own = err == nil
				return err
			}
			h = parent.Hash
		}
		return nil
	})
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	return own, err
}

// holdsClone reports whether the draft at head holds a's clone.
func holdsClone(ctx context.Context, ds *core.Session, head plumbing.Hash, a variants.Action) bool {
	got, err := readVariantPackage(ctx, ds, head, a.Package)
	return err == nil && got.Owner != nil && got.Owner.SameEntry(a.Owner) && got.Spec == a.Spec && got.Revision == a.Revision
}

// declined is a RequestError when porchbot's proposal for a (a clone, a
// deletion, an orphaning) was closed unmerged and its branch still holds
// what a brings: it is not proposed again until the entry or the upstream
// revision changes, or the branch is deleted.
func declined(ctx context.Context, ds *core.Session, f *variantFacts, a variants.Action) error {
	ws := map[variants.Kind]string{variants.Clone: variantWorkspace, variants.Delete: proposals.DeletionWorkspace, variants.Orphan: orphanWorkspace}[a.Kind]
	if ws == "" {
		return nil
	}
	branch := packages.DraftBranch(a.Package, ws)
	head, err := updates.BranchHead(ctx, ds, branch)
	if err != nil {
		return nil
	}
	n := declinedAt(f.pulls, branch, head)
	if n == 0 || a.Kind == variants.Clone && !holdsClone(ctx, ds, head, a) {
		return nil
	}
	return core.RequestErrorf("its proposal #%d was closed unmerged: not proposed again until the entry or the upstream revision changes (or %s is deleted)", n, mdquote.Code(branch))
}

// declinedAt is porchbot's pull request from branch that was closed
// unmerged at head (0: none): what it proposed was declined, and is not
// proposed again while the branch holds the same.
func declinedAt(pulls []hub.Pull, branch string, head plumbing.Hash) int {
	if head.IsZero() {
		return 0
	}
	for _, pr := range pulls {
		if pr.Head.Ref == branch && pr.State == "closed" && pr.MergedAt.IsZero() && !pr.Merged &&
			strings.EqualFold(pr.Head.SHA, head.String()) {
			return pr.Number
		}
	}
	return 0
}

// upstreamRevision is revision rev of upstream package pkg: the one a
// publish just made (its commit and release known), or its tag in up's
// cache.
func (c *Controller) upstreamRevision(ctx context.Context, up *core.Session, f *variantFacts, pkg string, rev int) (updates.UpstreamRevision, error) {
	if r, ok := f.published[pkg]; ok && r.Revision == rev {
		return updates.UpstreamRevision{Session: up, Package: pkg, Dir: core.PackageDir(up.Config.Packages.Root, pkg), Revision: rev,
			Commit: r.Commit, Release: r.Release}, nil
	}
	return updates.NewUpstreamRevision(ctx, up, pkg, rev)
}

// notesFor gives the release notes of upRev's range, the releases listed
// at most once per reconcile and upstream revision.
func (c *Controller) notesFor(ctx context.Context, f *variantFacts, upRev updates.UpstreamRevision) func(from, to int) []updates.UpstreamNote {
	key := strings.ToLower(upRev.Tag())
	if n, ok := f.notes[key]; ok {
		return n
	}
	n := c.Updates.NotesSource(ctx, upRev)
	f.notes[key] = n
	return n
}
