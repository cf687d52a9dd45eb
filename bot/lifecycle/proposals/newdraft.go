package proposals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// DefaultInitWorkspace is the workspace of a new package's first draft
// (init, clone) when none is given: the revision it is meant to become, as
// Porch's guides name workspaces.
const DefaultInitWorkspace = "v1"

// maxWorkspaceSuffix bounds the "-2", "-3", … tried when a default
// workspace is taken.
const maxWorkspaceSuffix = 20

// Draft is a draft branch created by NewDraft, EditDraft or Clone.
type Draft struct {
	Package   string
	Workspace string
	// Branch is drafts/<package>/<workspace> (no refs/heads/).
	Branch string
	// Dir is the package directory in the repository (packages.root
	// joined with Package).
	Dir string
	// Commit is the head of the new branch; Base the deployment-branch
	// commit it was built on.
	Commit, Base plumbing.Hash
	// Task is the Porch task recorded in the commit trailer (init, edit,
	// clone).
	Task string
	// Source is what the content was copied from: the tag for edit and
	// rollback ("network/upf/v3"), "repo/dir@ref" for clone; SourceCommit
	// is its commit.
	Source       string
	SourceCommit plumbing.Hash
	// Unchanged reports a draft whose package content equals the
	// deployment branch's (an edit of the revision in force).
	Unchanged bool
}

// NewDraftRequest asks for a new, empty package (kpt pkg init).
type NewDraftRequest struct {
	// Package is the package name (its path from packages.root).
	Package string
	// Workspace is the draft's workspace; "" means DefaultInitWorkspace.
	Workspace string
	// Description is the Kptfile info.description; "" means kpt pkg
	// init's default ("sample description").
	Description string
	// RequestedBy is the login named in the commit message, if any.
	RequestedBy string
}

// NewDraft creates the draft of a new package: branch
// drafts/<package>/<workspace> from the deployment branch head, holding
// exactly the files `kpt pkg init` writes (Kptfile named after the last
// segment of the package name, README.md, package-context.yaml), in one
// commit with Porch's trailer (task init). It refuses (*RequestError) an
// invalid name, a package that exists, a directory that exists without
// being a package, a package nested in another or enclosing one, and a
// draft branch that exists.
func NewDraft(ctx context.Context, s *core.Session, req NewDraftRequest) (*Draft, error) {
	d, err := startNewPackageDraft(ctx, s, req.Package, req.Workspace)
	if err != nil {
		return nil, err
	}
	desc := req.Description
	if desc == "" {
		desc = kptfile.DefaultDescription
	}
	files := kptfile.InitFiles(kptfile.InitOptions{Name: path.Base(req.Package), Description: desc})
	d.Task = packages.TaskInit
	spec, _ := json.Marshal(struct {
		Description string `json:"description,omitempty"`
	}{desc})
	msg := fmt.Sprintf("Init %s\n\nNew package %s (kpt pkg init), draft %s.", d.Package, d.Package, d.Workspace)
	if err := commitDraft(ctx, s, d, files, msg+requestedBy(req.RequestedBy), &packages.Task{Type: packages.TaskInit, Spec: spec}); err != nil {
		return nil, err
	}
	return d, nil
}

// EditRequest asks for a draft copied from a published revision.
type EditRequest struct {
	Package string
	// Revision is the revision to copy; 0 means the latest.
	Revision int
	// Workspace is the draft's workspace; "" means v<latest+1> (with
	// "-2", "-3", … appended while that draft exists).
	Workspace string
	// Rollback names the draft a rollback to Revision in its commit.
	Rollback bool
	// RequestedBy is the login named in the commit message, if any.
	RequestedBy string
}

// EditDraft creates a draft whose package content is a published revision
// (the tree of tag <package>/v<N>), on top of the deployment branch head, in
// one commit with Porch's trailer (task edit, sourceRef the tag). It is
// /porch edit (latest or --from vN) and /porch rollback (Rollback set). The
// commit is made even when the content equals the deployment branch's
// (Draft.Unchanged): the draft is where the next change goes.
func EditDraft(ctx context.Context, s *core.Session, req EditRequest) (*Draft, error) {
	if err := packages.ValidateName(req.Package); err != nil {
		return nil, &core.RequestError{Msg: err.Error()}
	}
	if s.DeploymentHead.IsZero() {
		return nil, core.RequestErrorf("the deployment branch %s has no commits yet", s.DeploymentBranch)
	}
	revs, err := PublishedRevisions(ctx, s, req.Package)
	if err != nil {
		return nil, err
	}
	if len(revs) == 0 {
		return nil, noPublishedRevision(ctx, s, req.Package)
	}
	latest := packages.Latest(revs)
	rev := req.Revision
	if rev == 0 {
		rev = latest
	}
	if !slices.Contains(revs, rev) {
		return nil, core.RequestErrorf("%s has no revision `v%d` (published: %s).", mdquote.Code(req.Package), rev, describeRevisions(revs))
	}
	tag := packages.TagName(req.Package, rev)
	src, err := s.ResolveRef(ctx, "refs/tags/"+tag)
	if err != nil {
		return nil, fmt.Errorf("resolve tag %s: %w", tag, err)
	}
	dir := DraftPackageDir(s, req.Package)
	files, err := s.Git.ReadTree(ctx, src, dir)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) {
			return nil, core.RequestErrorf("tag %s has no package at %s (was packages.root changed?)", mdquote.Code(tag), mdquote.Code(dir))
		}
		return nil, err
	}
	if _, ok := files[packages.KptfileName]; !ok {
		return nil, core.RequestErrorf("tag %s has no %s", mdquote.Code(tag), mdquote.Code(dir+"/"+packages.KptfileName))
	}
	ws, err := pickWorkspace(ctx, s, req.Package, req.Workspace, "v"+strconv.Itoa(latest+1), true)
	if err != nil {
		return nil, err
	}
	d := &Draft{Package: req.Package, Workspace: ws, Branch: packages.DraftBranch(req.Package, ws), Dir: dir,
		Base: s.DeploymentHead, Task: packages.TaskEdit, Source: tag, SourceCommit: src}
	current, err := s.Git.ReadTree(ctx, s.DeploymentHead, dir)
	if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
		return nil, err
	}
	d.Unchanged = err == nil && maps.EqualFunc(current, files, func(a, b []byte) bool { return string(a) == string(b) })
	spec, _ := json.Marshal(map[string]any{"sourceRef": map[string]string{"name": tag}})
	msg := fmt.Sprintf("Edit %s\n\nDraft %s copied from %s (%s).", req.Package, ws, tag, src)
	if req.Rollback {
		msg = fmt.Sprintf("Rollback %s to v%d\n\nDraft %s with the content of %s (%s).", req.Package, rev, ws, tag, src)
	}
	if err := commitDraft(ctx, s, d, files, msg+requestedBy(req.RequestedBy), &packages.Task{Type: packages.TaskEdit, Spec: spec}); err != nil {
		return nil, err
	}
	return d, nil
}

// startNewPackageDraft checks that pkg can become a new package and picks
// the workspace of its first draft.
func startNewPackageDraft(ctx context.Context, s *core.Session, pkg, workspace string) (*Draft, error) {
	if err := packages.ValidateName(pkg); err != nil {
		return nil, &core.RequestError{Msg: err.Error()}
	}
	if s.DeploymentHead.IsZero() {
		return nil, core.RequestErrorf("the deployment branch %s has no commits yet: push a first commit, then ask again", s.DeploymentBranch)
	}
	dir := DraftPackageDir(s, pkg)
	if err := CheckNewPackage(ctx, s, pkg, dir); err != nil {
		return nil, err
	}
	ws, err := pickWorkspace(ctx, s, pkg, workspace, DefaultInitWorkspace, false)
	if err != nil {
		return nil, err
	}
	return &Draft{Package: pkg, Workspace: ws, Branch: packages.DraftBranch(pkg, ws), Dir: dir, Base: s.DeploymentHead}, nil
}

// CheckNewPackage refuses a package name that exists on the deployment
// branch, names a directory that is there without being a package, or
// would nest in (or enclose) an existing package.
func CheckNewPackage(ctx context.Context, s *core.Session, pkg, dir string) error {
	paths, err := TreeFilePaths(ctx, s.Git, s.DeploymentHead)
	if err != nil {
		return err
	}
	root := packages.NormalizeRoot(s.Config.Packages.Root)
	for _, p := range packages.Discover(paths, root) {
		switch {
		case p.Name == pkg:
			return core.RequestErrorf("package %s already exists on %s: use %s for a new draft of it", mdquote.Code(pkg), mdquote.Code(s.DeploymentBranch), mdquote.Code("/porch edit "+pkg))
		case strings.HasPrefix(pkg, p.Name+"/"):
			return core.RequestErrorf("%s is inside package %s: it would be a subpackage of it, not a package of its own", mdquote.Code(pkg), mdquote.Code(p.Name))
		case strings.HasPrefix(p.Name, pkg+"/"):
			return core.RequestErrorf("package %s exists inside %s: a package there would swallow it as a subpackage", mdquote.Code(p.Name), mdquote.Code(pkg))
		}
	}
	for _, f := range paths {
		if f == dir || strings.HasPrefix(f, dir+"/") {
			return core.RequestErrorf("%s already exists on %s and is not a package; refusing to overwrite it", mdquote.Code(dir), mdquote.Code(s.DeploymentBranch))
		}
	}
	return nil
}

// pickWorkspace validates an explicit workspace and checks that its draft
// branch does not exist; with none, it takes def (then def-2, def-3, …
// when suffix is set) for the first that is free.
func pickWorkspace(ctx context.Context, s *core.Session, pkg, explicit, def string, suffix bool) (string, error) {
	if explicit != "" {
		if err := packages.ValidateWorkspace(explicit); err != nil {
			return "", &core.RequestError{Msg: err.Error()}
		}
		exists, err := branchExists(ctx, s, packages.DraftBranch(pkg, explicit))
		if err != nil {
			return "", err
		}
		if exists {
			return "", core.RequestErrorf("draft %s already exists; pick another --workspace", mdquote.Code(packages.DraftBranch(pkg, explicit)))
		}
		return explicit, nil
	}
	candidates := []string{def}
	if suffix {
		for i := 2; i <= maxWorkspaceSuffix; i++ {
			candidates = append(candidates, def+"-"+strconv.Itoa(i))
		}
	}
	for _, ws := range candidates {
		exists, err := branchExists(ctx, s, packages.DraftBranch(pkg, ws))
		if err != nil {
			return "", err
		}
		if !exists {
			return ws, nil
		}
	}
	if !suffix {
		return "", core.RequestErrorf("draft %s already exists; pass --workspace to start another one", mdquote.Code(packages.DraftBranch(pkg, def)))
	}
	return "", core.RequestErrorf("drafts %s to %s all exist; pass --workspace", mdquote.Code(packages.DraftBranch(pkg, def)), mdquote.Code(fmt.Sprintf("%s-%d", def, maxWorkspaceSuffix)))
}

// branchExists looks a branch up in the session's git cache.
func branchExists(ctx context.Context, s *core.Session, branch string) (bool, error) {
	_, err := s.ResolveRef(ctx, "refs/heads/"+branch)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, gitstore.ErrNotFound), errors.Is(err, plumbing.ErrReferenceNotFound):
		return false, nil
	}
	return false, fmt.Errorf("look up branch %s: %w", branch, err)
}

// PublishedRevisions lists pkg's revisions: the tags porchbot published
// (revrecord.IsRevision), from the cache.
func PublishedRevisions(ctx context.Context, s *core.Session, pkg string) ([]int, error) {
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return nil, err
	}
	return tags.Published().Revisions(pkg), nil
}

// DraftPackageDir is the repository directory of package pkg.
func DraftPackageDir(s *core.Session, pkg string) string {
	return path.Join(packages.NormalizeRoot(s.Config.Packages.Root), pkg)
}

// commitDraft commits files as the package content on a new draft branch
// (lease: the branch must not exist) and records the commit in d.
func commitDraft(ctx context.Context, s *core.Session, d *Draft, files map[string][]byte, msg string, task *packages.Task) error {
	res, err := s.CommitUnderLease(ctx, core.Identity{}, d.Branch, plumbing.ZeroHash, 1, func(context.Context, plumbing.Hash) (*core.PackageCommit, error) {
		return &core.PackageCommit{Parent: d.Base, Dir: d.Dir, Files: files,
			Message: msg, AllowEmpty: true,
			Trailer: packages.Trailer{Package: d.Package, WorkspaceName: d.Workspace, Revision: "0", Task: task},
		}, nil
	})
	if err != nil {
		if errors.Is(err, gitstore.ErrLeaseBroken) {
			return core.RequestErrorf("draft %s was created by someone else meanwhile; nothing was overwritten", mdquote.Code(d.Branch))
		}
		return err
	}
	d.Commit = res.Head
	s.Log.WithField("package", d.Package).WithField("ref", d.Branch).WithField("task", d.Task).Info("draft created")
	return nil
}

func requestedBy(login string) string {
	if login == "" {
		return ""
	}
	return "\nRequested by @" + strings.TrimPrefix(login, "@") + "."
}

// describeRevisions renders revisions as "`v1`, `v2`, `v3`" (the last ten).
func describeRevisions(revs []int) string {
	var b strings.Builder
	start := 0
	if len(revs) > 10 {
		start = len(revs) - 10
		b.WriteString("…, ")
	}
	for i, r := range revs[start:] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(mdquote.Code("v" + strconv.Itoa(r)))
	}
	return b.String()
}
