package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Open opens where as a GitSource: a local checkout or bare repository
// (any directory inside one), or else a git URL cloned into memory (all
// tags, no checkout). It also returns the repository's name as the index
// names it (owner/name, from the URL or the checkout's origin remote).
func Open(ctx context.Context, where string) (GitSource, string, error) {
	return OpenBranch(ctx, where, DefaultBranch)
}

// OpenBranch is Open for a repository whose index lives on branch (its
// lifecycle.indexBranch).
func OpenBranch(ctx context.Context, where, branch string) (GitSource, string, error) {
	if st, err := os.Stat(where); err == nil && st.IsDir() {
		r, err := git.PlainOpen(where) // a bare repository, or a checkout's top
		if err != nil {
			r, err = git.PlainOpenWithOptions(where, &git.PlainOpenOptions{DetectDotGit: true})
		}
		if err != nil {
			return GitSource{}, "", fmt.Errorf("%s: not a git repository: %w", where, err)
		}
		name := ""
		if rem, err := r.Remote("origin"); err == nil && len(rem.Config().URLs) > 0 {
			name = RepositoryName(rem.Config().URLs[0])
		}
		src := NewGitSource(keepDescriptors(r))
		src.branch = branch
		return src, name, nil
	}
	r, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{URL: where, Tags: git.AllTags, NoCheckout: true})
	if err != nil {
		return GitSource{}, "", fmt.Errorf("clone %s: %w", where, err)
	}
	if err := r.FetchContext(ctx, &git.FetchOptions{RefSpecs: []config.RefSpec{config.RefSpec("+refs/heads/" + branch + ":refs/remotes/origin/" + branch)}}); err != nil &&
		!errors.Is(err, git.NoErrAlreadyUpToDate) && !isMissingRef(err) {
		return GitSource{}, "", fmt.Errorf("fetch %s of %s: %w", branch, where, err)
	}
	src := NewGitSource(r)
	src.branch = branch
	return src, RepositoryName(where), nil
}

// keepDescriptors reopens a repository on disk with its pack files kept
// open between object reads (go-git reopens them for every object
// otherwise, which dominates reading thousands of trees).
func keepDescriptors(r *git.Repository) *git.Repository {
	st, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		return r
	}
	kept := filesystem.NewStorageWithOptions(st.Filesystem(), cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	reopened, err := git.Open(kept, nil)
	if err != nil {
		return r
	}
	return reopened
}

func isMissingRef(err error) bool {
	var nm git.NoMatchingRefSpecError
	return errors.As(err, &nm) || strings.Contains(err.Error(), "couldn't find remote ref")
}

// RepositoryName is owner/name for a git URL of a GitHub-like host
// (https://host/owner/name(.git), git@host:owner/name(.git),
// ssh://git@host/owner/name), else the URL as given.
func RepositoryName(raw string) string {
	s := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(raw), "/"), ".git")
	p := ""
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		p = u.Path
	} else if at := strings.Index(s, "@"); at >= 0 && strings.Contains(s[at:], ":") {
		p = s[strings.Index(s[at:], ":")+at+1:]
	}
	p = strings.Trim(p, "/")
	if parts := strings.Split(p, "/"); len(parts) >= 2 && parts[len(parts)-2] != "" && parts[len(parts)-1] != "" {
		return path.Join(parts[len(parts)-2], parts[len(parts)-1])
	}
	return raw
}

// Previous is the index kept on the repository's index branch (the local
// branch, or origin's), if there is one.
func (g GitSource) Previous() (*Index, error) {
	branch := g.branch
	if branch == "" {
		branch = DefaultBranch
	}
	for _, ref := range []plumbing.ReferenceName{plumbing.NewBranchReferenceName(branch), plumbing.NewRemoteReferenceName("origin", branch)} {
		r, err := g.Repo.Reference(ref, true)
		if err != nil {
			continue
		}
		c, err := g.Repo.CommitObject(r.Hash())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref.Short(), err)
		}
		f, err := c.File(FileName)
		if err != nil {
			return nil, nil
		}
		rd, err := f.Reader()
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		data, err := io.ReadAll(io.LimitReader(rd, MaxTreeBytes))
		if err != nil {
			return nil, err
		}
		return Decode(data)
	}
	return nil, nil
}
