package core

import (
	"context"
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/packages"
)

// The questions publish and resync ask of the deployment branch's history.

// ChangedPackages lists the top-level packages commit changed against its
// first parent (packages under packages.root; a subpackage's change is its
// top-level package's), sorted by name.
func ChangedPackages(ctx context.Context, s *Session, commit plumbing.Hash) ([]Landing, error) {
	var out []Landing
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		out, err = s.Walker(ctx, repo).changed(commit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("packages changed by %s: %w", commit, err)
	}
	return out, nil
}

// PendingLandings is the unpublished history of package name up to
// commit upTo (see PackageHistory).
func PendingLandings(ctx context.Context, s *Session, name string, upTo plumbing.Hash, tags RevisionTags) (*PackageHistory, error) {
	var h *PackageHistory
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		h, err = s.Walker(ctx, repo).History(name, PackageDir(s.Config.Packages.Root, name), upTo, tags, LandingHistoryOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("history of %s up to %s: %w", name, upTo, err)
	}
	return h, nil
}

// UntaggedLandings is the unpublished history up to upTo of every
// top-level package at upTo, sorted by package; packages with nothing
// pending are left out.
func UntaggedLandings(ctx context.Context, s *Session, upTo plumbing.Hash, tags RevisionTags) ([]*PackageHistory, error) {
	var out []*PackageHistory
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		w := s.Walker(ctx, repo)
		names, err := w.TopLevelPackages(upTo)
		if err != nil {
			return err
		}
		for _, name := range names {
			h, err := w.History(name, PackageDir(s.Config.Packages.Root, name), upTo, tags, LandingHistoryOptions{})
			if err != nil {
				return err
			}
			if len(h.Pending) > 0 {
				out = append(out, h)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("untagged landings up to %s: %w", upTo, err)
	}
	return out, nil
}

// TopLevelPackages lists the valid top-level package names at commit h.
// It walks trees only (no blob is read).
func (w *LandingWalker) TopLevelPackages(h plumbing.Hash) ([]string, error) {
	t, err := w.RootTree(h)
	if err != nil || t == nil {
		return nil, err
	}
	var files []string
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		if err := w.Ctx.Err(); err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := e.Name
			if prefix != "" {
				p = prefix + "/" + e.Name
			}
			switch {
			case e.Mode == filemode.Dir:
				sub, err := object.GetTree(w.Storer, e.Hash)
				if err != nil {
					return fmt.Errorf("tree %s: %w", p, err)
				}
				if err := walk(sub, p); err != nil {
					return err
				}
			case e.Name == packages.KptfileName && e.Mode != filemode.Submodule:
				files = append(files, p)
			}
		}
		return nil
	}
	prefix := ""
	if w.root != "" {
		e, err := w.entryAt(t, w.root)
		if err != nil {
			return nil, err
		}
		if e == nil || e.Mode != filemode.Dir {
			return nil, nil
		}
		if t, err = object.GetTree(w.Storer, e.Hash); err != nil {
			return nil, fmt.Errorf("tree %s: %w", w.root, err)
		}
		prefix = w.root
	}
	if err := walk(t, prefix); err != nil {
		return nil, fmt.Errorf("list packages of %s: %w", h, err)
	}
	var names []string
	for _, p := range packages.Discover(files, w.root) {
		if p.TopLevel() && p.Err == nil {
			names = append(names, p.Name)
		}
	}
	return names, nil
}

// LandingIsTopLevel reports whether dir holds a top-level package at
// commit: a Kptfile there and none in a directory above it.
func LandingIsTopLevel(ctx context.Context, s *Session, commit plumbing.Hash, dir string) (bool, error) {
	root := s.Config.Packages.Root
	found := false
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		names, err := s.Walker(ctx, repo).TopLevelPackages(commit)
		if err != nil {
			return err
		}
		for _, n := range names {
			if PackageDir(root, n) == dir {
				found = true
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("packages at %s: %w", commit, err)
	}
	return found, nil
}
