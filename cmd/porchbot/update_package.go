package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/update"
	"github.com/porchbot/porchbot/internal/upstream"
)

// updateRequest is one `porchbot update`.
type updateRequest struct {
	Dir        string
	Ref        string // "" = the Kptfile's upstream.git.ref
	Strategy   string
	OnConflict string
}

// updateResult is what updatePackage did.
type updateResult struct {
	requested        string // the ref asked for (recorded as upstream.git.ref)
	lock             kptfile.GitLock
	conflicts        []update.Conflict
	written, removed int
}

// updatePackage is `kpt pkg update` of the package in req.Dir: origin is
// the upstream at upstreamLock.commit, updated the upstream at the ref,
// local the directory. Every check (package, upstream, ref, YAML) runs
// before the first write: an error changes nothing.
func updatePackage(ctx context.Context, store upstream.Store, req updateRequest) (updateResult, error) {
	var res updateResult
	kfPath := filepath.Join(req.Dir, kptfile.FileName)
	data, err := os.ReadFile(kfPath)
	if errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("%s is not a kpt package: %s does not exist", req.Dir, kfPath)
	}
	if err != nil {
		return res, err
	}
	kf, err := kptfile.ParseFile(kfPath, data)
	if err != nil {
		return res, err
	}
	k := kf.Kptfile()
	if k.Upstream == nil || k.Upstream.Git == nil || k.Upstream.Git.Repo == "" {
		return res, fmt.Errorf("%s: no upstream.git.repo: the package was not fetched with kpt pkg get (nothing to update from)", kfPath)
	}
	up := *k.Upstream.Git
	res.requested = req.Ref
	if res.requested == "" {
		res.requested = up.Ref
	}
	if res.requested == "" {
		return res, fmt.Errorf("%s: upstream.git.ref is empty: name the ref as %s@REF", kfPath, req.Dir)
	}
	local, err := readPackageDir(req.Dir)
	if err != nil {
		return res, err
	}

	repo, err := upstream.Open(ctx, store, up.Repo)
	if err != nil {
		return res, fmt.Errorf("%s: %w", kfPath, err)
	}
	rev, err := repo.Resolve(ctx, up.Directory, res.requested)
	if err != nil {
		return res, err
	}
	updated, err := repo.Files(ctx, rev.Commit, up.Directory)
	if err != nil {
		return res, err
	}
	origin := update.Files{}
	if l := k.UpstreamLock; l != nil && l.Git != nil && l.Git.Commit != "" {
		c, err := repo.Commit(ctx, l.Git.Commit)
		if err != nil {
			return res, fmt.Errorf("%s: upstreamLock: %w", kfPath, err)
		}
		if origin, err = repo.Files(ctx, c, up.Directory); err != nil {
			return res, err
		}
	}
	pkgDir := strings.Trim(path.Clean("/"+up.Directory), "/")
	if err := update.CheckFiles(filepath.ToSlash(filepath.Clean(req.Dir)), local); err != nil {
		return res, err
	}
	if err := update.CheckFiles(pkgDir, updated); err != nil {
		return res, fmt.Errorf("upstream %s@%s: %w", up.Repo, rev.Ref, err)
	}
	if err := update.CheckFiles(pkgDir, origin); err != nil {
		return res, fmt.Errorf("upstream %s at upstreamLock.commit %s: %w", up.Repo, shortSHA(k), err)
	}

	res.lock = kptfile.GitLock{Repo: up.Repo, Directory: up.Directory, Ref: rev.Ref, Commit: rev.Commit.String()}
	lock := res.lock
	merged, err := update.Merge(origin, updated, local, update.Options{Strategy: req.Strategy, OnConflict: req.OnConflict, Lock: &lock})
	res.conflicts = merged.Conflicts
	if err != nil {
		if errors.Is(err, update.ErrConflicts) {
			return res, fmt.Errorf("%s: %w; nothing written (--on-conflict fail)", req.Dir, err)
		}
		return res, fmt.Errorf("%s: %w", req.Dir, err)
	}
	if err := recordRequestedRef(merged.Files, res.requested, res.lock); err != nil {
		return res, err
	}
	res.written, res.removed, err = writePackageDir(req.Dir, local, merged.Files)
	return res, err
}

// recordRequestedRef writes upstream.git.ref as the ref the user asked
// for ("v2"), as kpt does; upstreamLock keeps the resolved ref ("app/v2").
func recordRequestedRef(files update.Files, ref string, lock kptfile.GitLock) error {
	data, ok := files[kptfile.FileName]
	if !ok {
		return errors.New("the merge returned no Kptfile")
	}
	kf, err := kptfile.Parse(data)
	if err != nil {
		return fmt.Errorf("merged Kptfile: %w", err)
	}
	u := kf.Kptfile().Upstream
	if u == nil || u.Git == nil {
		u = &kptfile.Upstream{Type: kptfile.OriginGit, Git: &kptfile.Git{Repo: lock.Repo, Directory: lock.Directory}}
	}
	if u.Git.Ref == ref {
		return nil
	}
	g := *u.Git
	g.Ref = ref
	nu := *u
	nu.Git = &g
	if err := kf.SetUpstream(&nu); err != nil {
		return fmt.Errorf("merged Kptfile: %w", err)
	}
	out, err := kf.Bytes()
	if err != nil {
		return fmt.Errorf("merged Kptfile: %w", err)
	}
	files[kptfile.FileName] = out
	return nil
}

func shortSHA(k *kptfile.Kptfile) string {
	if k.UpstreamLock == nil || k.UpstreamLock.Git == nil {
		return "none"
	}
	c := k.UpstreamLock.Git.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return c
}
