package proposals

// The checks by which a command tells its commenter what they got wrong
// (a package or draft that does not exist, a draft with nothing to
// propose or already merged) and what to do instead, as *RequestError
// values. They read the session's git cache; only the answer to a draft
// already merged costs a REST call (its pull request's number).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/suggest"
)

// maxNearest bounds the names a "did you mean" offers.
const maxNearest = 3

// PackageNames are the top-level packages on the deployment branch head.
func PackageNames(ctx context.Context, s *core.Session) ([]string, error) {
	if s.DeploymentHead.IsZero() {
		return nil, nil
	}
	paths, err := TreeFilePaths(ctx, s.Git, s.DeploymentHead)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range packages.Discover(paths, s.Config.Packages.Root) {
		if p.TopLevel() && p.Err == nil {
			names = append(names, p.Name)
		}
	}
	return names, nil
}

// RequirePackage is nil when pkg is a package on the deployment branch,
// else a *RequestError naming the nearest packages there are.
func RequirePackage(ctx context.Context, s *core.Session, pkg string) error {
	names, err := PackageNames(ctx, s)
	if err != nil {
		return err
	}
	if slices.Contains(names, pkg) {
		return nil
	}
	return unknownPackage(s, pkg, names)
}

// unknownPackage is the refusal of a package name that is not one of
// names.
func unknownPackage(s *core.Session, pkg string, names []string) error {
	msg := fmt.Sprintf("There is no package %s on %s.", mdquote.Code(pkg), mdquote.Code(s.DeploymentBranch))
	if near := nearest(pkg, names); near != "" {
		msg += " Did you mean " + near + "?"
	}
	return &core.RequestError{Msg: msg + " `/porch list` lists the packages."}
}

// nearest is "`a`, `b` or `c`": the names closest to word, or "".
func nearest(word string, names []string) string {
	near := suggest.Nearest(word, names, suggest.Limit(word))
	if len(near) == 0 {
		return ""
	}
	near = near[:min(len(near), maxNearest)]
	for i, n := range near {
		near[i] = mdquote.Code(n)
	}
	if len(near) == 1 {
		return near[0]
	}
	return strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1]
}

// MergedPulls finds the merged pull request of a branch
// (a part of s.Hub).
type MergedPulls interface {
	ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error)
}

// CheckProposable is nil when draft pkg/workspace exists and has commits
// that are not on the deployment branch. Otherwise a *RequestError says
// which: no such draft (with the nearest drafts, or how to start one),
// nothing to propose, or the draft already merged (with its pull request,
// found through pulls: one call, made only then).
func CheckProposable(ctx context.Context, s *core.Session, pulls MergedPulls, pkg, workspace string) error {
	branch := packages.DraftBranch(pkg, workspace)
	head, err := s.ResolveRef(ctx, "refs/heads/"+branch)
	if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrReferenceNotFound) {
		return unknownDraft(ctx, s, pkg, workspace)
	}
	if err != nil {
		return fmt.Errorf("look up draft %s: %w", branch, err)
	}
	contained, err := onDeploymentBranch(ctx, s, head)
	if err != nil || !contained {
		return err
	}
	prs, _, err := pulls.ListPulls(ctx, s.Repo.Owner, s.Repo.Name, hub.PullQuery{State: "closed",
		Head: s.Repo.Owner + ":" + branch, Base: s.DeploymentBranch, Page: hub.Page{PerPage: 10}})
	if err != nil {
		return fmt.Errorf("pull requests of %s: %w", branch, err)
	}
	for _, pr := range prs {
		if pr.MergedAt.IsZero() && !pr.Merged {
			continue
		}
		return core.RequestErrorf("%s is already merged (#%d): its changes are on %s. %s starts the next draft.",
			mdquote.Code(branch), pr.Number, mdquote.Code(s.DeploymentBranch), mdquote.Code("/porch edit "+pkg))
	}
	return core.RequestErrorf("Nothing to propose: %s has no commits that are not on %s. Push changes to it, then %s.",
		mdquote.Code(branch), mdquote.Code(s.DeploymentBranch), mdquote.Code("/porch propose "+pkg+"/"+workspace))
}

// unknownDraft is the refusal of a draft that has no branch.
func unknownDraft(ctx context.Context, s *core.Session, pkg, workspace string) error {
	msg := fmt.Sprintf("There is no draft %s.", mdquote.Code(packages.DraftBranch(pkg, workspace)))
	drafts, err := draftNames(ctx, s)
	if err != nil {
		return err
	}
	if near := nearest(pkg+"/"+workspace, drafts); near != "" {
		return &core.RequestError{Msg: msg + " Did you mean " + near + "? `/porch list` lists the drafts."}
	}
	names, err := PackageNames(ctx, s)
	if err != nil {
		return err
	}
	if slices.Contains(names, pkg) {
		return &core.RequestError{Msg: msg + fmt.Sprintf(" %s starts a draft of %s; `/porch list` lists the drafts.", mdquote.Code("/porch edit "+pkg), mdquote.Code(pkg))}
	}
	return &core.RequestError{Msg: msg + fmt.Sprintf(" %s is not a package on %s: %s starts a new one; `/porch list` lists the drafts.",
		mdquote.Code(pkg), mdquote.Code(s.DeploymentBranch), mdquote.Code("/porch init "+pkg))}
}

// draftNames are the drafts as "<package>/<workspace>".
func draftNames(ctx context.Context, s *core.Session) ([]string, error) {
	l := &Listing{}
	if err := listDrafts(ctx, s, l); err != nil {
		return nil, err
	}
	out := make([]string, len(l.Drafts))
	for i, d := range l.Drafts {
		out[i] = d.Package + "/" + d.Workspace
	}
	return out, nil
}

// onDeploymentBranch reports whether commit is in the deployment branch's
// history.
func onDeploymentBranch(ctx context.Context, s *core.Session, commit plumbing.Hash) (bool, error) {
	if s.DeploymentHead.IsZero() {
		return false, nil
	}
	if commit == s.DeploymentHead {
		return true, nil
	}
	var in bool
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(commit)
		if err != nil {
			return fmt.Errorf("read %s: %w", commit, err)
		}
		h, err := repo.CommitObject(s.DeploymentHead)
		if err != nil {
			return fmt.Errorf("read %s: %w", s.DeploymentHead, err)
		}
		in, err = c.IsAncestor(h)
		return err
	})
	return in, err
}

// noPublishedRevision is the refusal to copy a revision of pkg, which has
// none: it says whether pkg is on the deployment branch (and how its
// first revision is published), only a draft (and how to propose it), or
// not a package at all (with the nearest names).
func noPublishedRevision(ctx context.Context, s *core.Session, pkg string) error {
	names, err := PackageNames(ctx, s)
	if err != nil {
		return err
	}
	if slices.Contains(names, pkg) {
		how := "when a proposal of the package merges, or by `/porch publish` (see `/porch help publish`)"
		if s.Config.Lifecycle.PublishOn == config.PublishOnNever {
			how = "by `/porch publish` in the merged pull request (this repository says `publishOn: never`)"
		}
		return core.RequestErrorf("%s has no published revision yet (no tag %s), so there is nothing to copy. "+
			"A revision is published %s; meanwhile a branch %s pushed from %s is a draft of it.",
			mdquote.Code(pkg), mdquote.Code(packages.TagName(pkg, 1)), how, mdquote.Code("drafts/"+pkg+"/<workspace>"), mdquote.Code(s.DeploymentBranch))
	}
	drafts, err := draftNames(ctx, s)
	if err != nil {
		return err
	}
	var own []string
	for _, d := range drafts {
		if strings.HasPrefix(d, pkg+"/") && !strings.Contains(strings.TrimPrefix(d, pkg+"/"), "/") {
			own = append(own, d)
		}
	}
	if len(own) > 0 {
		return core.RequestErrorf("%s has no published revision yet: it is only a draft (%s). "+
			"%s proposes it, and its merge publishes `v1`.", mdquote.Code(pkg), mdquote.Code("drafts/"+own[0]), mdquote.Code("/porch propose "+own[0]))
	}
	tagged, err := taggedPackages(ctx, s)
	if err != nil {
		return err
	}
	return unknownPackage(s, pkg, append(names, tagged...))
}

// noSourceRevision is the refusal of a clone source package without a
// published revision in this (the source) repository.
func noSourceRevision(ctx context.Context, s *core.Session, pkg string) error {
	tagged, err := taggedPackages(ctx, s)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s has no published revision of %s.", mdquote.Code(s.Repo.FullName()), mdquote.Code(pkg))
	if near := nearest(pkg, tagged); near != "" {
		msg += " Did you mean " + near + "?"
	}
	return &core.RequestError{Msg: msg + " Clone a published revision: `owner/repo/<package>@v<N>`."}
}

// taggedPackages are the packages with at least one revision tag.
func taggedPackages(ctx context.Context, s *core.Session) ([]string, error) {
	revs, err := revisionTags(ctx, s)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(revs)), nil
}

// revisionTags are the published revisions of every package: the tags
// porchbot published (revrecord.IsRevision), from the cache.
func revisionTags(ctx context.Context, s *core.Session) (map[string][]int, error) {
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return nil, err
	}
	return tags.Published().ByPackage(), nil
}
