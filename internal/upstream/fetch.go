package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/update"
)

// ErrRefNotFound is wrapped by Resolve when no tag, branch or commit
// matches.
var ErrRefNotFound = errors.New("ref not found")

// Store is the git cache (a *gitstore.Store).
type Store interface {
	Repo(remoteURL string) (*gitstore.Cache, error)
}

// Repo is one upstream repository, fetched (every branch and tag).
type Repo struct {
	URL   string
	cache *gitstore.Cache
}

// Revision is a resolved ref.
type Revision struct {
	// Ref is the ref kpt records in upstreamLock: "app/v2" for a package
	// tag, else the ref as given.
	Ref    string
	Commit plumbing.Hash
}

// Open fetches every branch and tag of the repository at repoURL.
func Open(ctx context.Context, store Store, repoURL string) (*Repo, error) {
	c, err := store.Repo(repoURL)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", repoURL, err)
	}
	if err := c.Fetch(ctx, gitstore.BranchesRefSpec, gitstore.TagsRefSpec); err != nil {
		return nil, fmt.Errorf("upstream %s cannot be fetched: %w", repoURL, err)
	}
	return &Repo{URL: repoURL, cache: c}, nil
}

// Resolve finds the commit ref names for the package at dir, in kpt's
// order (see the package comment).
func (r *Repo) Resolve(ctx context.Context, dir, ref string) (Revision, error) {
	if ref == "" {
		return Revision{}, fmt.Errorf("upstream %s: empty ref: %w", r.URL, ErrRefNotFound)
	}
	var candidates []Revision
	for p := strings.Trim(path.Clean("/"+dir), "/"); p != "" && p != "."; p = parentDir(p) {
		candidates = append(candidates, Revision{Ref: p + "/" + ref})
	}
	for i := range candidates {
		h, err := r.lookup(ctx, "refs/tags/"+candidates[i].Ref)
		if err != nil {
			return Revision{}, err
		}
		if !h.IsZero() {
			return Revision{Ref: candidates[i].Ref, Commit: h}, nil
		}
	}
	names := []string{"refs/heads/" + ref, "refs/tags/" + ref}
	if len(ref) == 40 && plumbing.IsHash(ref) {
		names = append(names, strings.ToLower(ref))
	}
	for _, n := range names {
		h, err := r.lookup(ctx, n)
		if err != nil {
			return Revision{}, err
		}
		if !h.IsZero() {
			return Revision{Ref: ref, Commit: h}, nil
		}
	}
	return Revision{}, fmt.Errorf("upstream %s: ref %q (tag %s, branch, tag or commit): %w",
		r.URL, ref, tagNames(candidates), ErrRefNotFound)
}

// lookup resolves a ref name, ZeroHash when absent.
func (r *Repo) lookup(ctx context.Context, name string) (plumbing.Hash, error) {
	h, err := r.cache.ResolveRef(ctx, name)
	if errors.Is(err, gitstore.ErrNotFound) {
		return plumbing.ZeroHash, nil
	}
	return h, err
}

// Commit checks that a commit (an upstreamLock's) is in the repository.
func (r *Repo) Commit(ctx context.Context, sha string) (plumbing.Hash, error) {
	if len(sha) != 40 || !plumbing.IsHash(sha) {
		return plumbing.ZeroHash, fmt.Errorf("upstream %s: %q is not a commit id", r.URL, sha)
	}
	h, err := r.lookup(ctx, strings.ToLower(sha))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h.IsZero() {
		return plumbing.ZeroHash, fmt.Errorf("upstream %s: commit %s: %w", r.URL, sha, ErrRefNotFound)
	}
	return h, nil
}

// Files reads the package at dir at commit. Its bounds are the Store's
// (gitstore Options.MaxTreeFiles, MaxTreeBytes). Symbolic links are left
// out, as kpt leaves them out of a fetched package.
func (r *Repo) Files(ctx context.Context, commit plumbing.Hash, dir string) (update.Files, error) {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	files, err := r.cache.ReadTree(ctx, commit, dir)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: package /%s at %s: %w", r.URL, dir, commit, err)
	}
	links, err := r.symlinks(ctx, commit, dir)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: package /%s at %s: %w", r.URL, dir, commit, err)
	}
	for _, l := range links {
		delete(files, l)
	}
	return update.Files(files), nil
}

// symlinks lists the symbolic links under dir at commit, relative to dir.
func (r *Repo) symlinks(ctx context.Context, commit plumbing.Hash, dir string) ([]string, error) {
	var links []string
	err := r.cache.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(commit)
		if err != nil {
			return err
		}
		t, err := c.Tree()
		if err != nil {
			return err
		}
		if dir != "" {
			if t, err = t.Tree(dir); err != nil {
				return err
			}
		}
		w := object.NewTreeWalker(t, true, nil)
		defer w.Close()
		for {
			name, e, err := w.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if e.Mode == filemode.Symlink {
				links = append(links, name)
			}
		}
	})
	return links, err
}

func parentDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return ""
}

func tagNames(cs []Revision) string {
	if len(cs) == 0 {
		return "none"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Ref
	}
	return strings.Join(names, ", ")
}
