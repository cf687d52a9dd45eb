package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
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
	local, err := readLocalPackage(req.Dir)
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
	where := fmt.Sprintf("upstream %s%s@%s", up.Repo, up.Directory, rev.Ref)
	localWhere := filepath.Clean(req.Dir) + string(filepath.Separator)
	for _, t := range []struct {
		where string
		files update.Files
	}{{localWhere, local}, {where + ": ", updated}, {where + " (origin " + shortSHA(k) + "): ", origin}} {
		if err := checkYAML(t.where, t.files); err != nil {
			return res, err
		}
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
	res.written, res.removed, err = writePackage(req.Dir, local, merged.Files)
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

// readLocalPackage reads every regular file under dir (subpackages
// included; .git directories and symbolic links skipped, as kpt skips
// them), bounded by updateMaxFiles and updateMaxBytes.
func readLocalPackage(dir string) (update.Files, error) {
	files := update.Files{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if len(files) >= updateMaxFiles {
			return fmt.Errorf("%s: more than %d files", dir, updateMaxFiles)
		}
		if total += info.Size(); total > updateMaxBytes {
			return fmt.Errorf("%s: more than %d bytes (at %s)", dir, updateMaxBytes, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	return files, nil
}

// writePackage makes dir hold result: files that differ from local are
// written, files of local absent from result removed (with directories
// left empty). Paths are checked first: nothing is written if one would
// leave dir.
func writePackage(dir string, local, result update.Files) (written, removed int, err error) {
	paths := make([]string, 0, len(result))
	for p := range result {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") ||
			strings.Contains("/"+p+"/", "/.git/") {
			return 0, 0, fmt.Errorf("the merge returned an invalid path %q", p)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		old, had := local[p]
		if had && string(old) == string(result[p]) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		mode := os.FileMode(0o644)
		if info, err := os.Stat(dst); err == nil {
			mode = info.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return written, removed, err
		}
		if err := writeFileAtomic(dst, result[p], mode); err != nil {
			return written, removed, err
		}
		written++
	}
	for p := range local {
		if _, keep := result[p]; keep {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.Remove(dst); err != nil {
			return written, removed, err
		}
		removed++
		for d := filepath.Dir(dst); d != filepath.Clean(dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break // not empty
			}
		}
	}
	return written, removed, nil
}

// writeFileAtomic replaces dst by a complete file or not at all.
func writeFileAtomic(dst string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".porchbot-update-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
