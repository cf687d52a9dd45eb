package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const remoteName = "origin"

// Refspecs for Fetch.
const (
	// BranchesRefSpec mirrors every branch into refs/remotes/origin/*. It is
	// the default of Fetch.
	BranchesRefSpec config.RefSpec = "+refs/heads/*:refs/remotes/origin/*"
	// TagsRefSpec mirrors every tag into refs/tags/*. Tags are fetched only
	// through this (or another explicit) refspec.
	TagsRefSpec config.RefSpec = "+refs/tags/*:refs/tags/*"
)

// BranchRefSpec mirrors one branch into refs/remotes/origin/<branch>. Fetch
// returns ErrNotFound if the remote has no such branch.
func BranchRefSpec(branch string) config.RefSpec {
	return config.RefSpec(fmt.Sprintf("+%s:refs/remotes/%s/%s",
		plumbing.NewBranchReferenceName(branch), remoteName, branch))
}

// Fetch brings the cache up to date with the remote for the given refspecs
// (default BranchesRefSpec) with full history. Only refs matching the
// refspecs are fetched; they are always applied as forced (the cache mirrors
// the remote, rewritten branches included), and local refs they cover that no
// longer exist on the remote are deleted (prune). Being already up to date is
// not an error.
func (c *Cache) Fetch(ctx context.Context, refspecs ...config.RefSpec) error {
	if len(refspecs) == 0 {
		refspecs = []config.RefSpec{BranchesRefSpec}
	}
	// The cache mirrors the remote: every refspec is applied as forced. The
	// "+" is removed and FetchOptions.Force set instead, because go-git's
	// prune reverses refspecs textually and would take "+refs/heads/x" as a
	// ref name, deleting and re-creating every ref on each fetch.
	specs := make([]config.RefSpec, len(refspecs))
	for i, rs := range refspecs {
		if err := rs.Validate(); err != nil {
			return fmt.Errorf("gitstore: fetch %s: refspec %q: %w", c.loc.name, rs, err)
		}
		specs[i] = config.RefSpec(strings.TrimPrefix(string(rs), "+"))
	}

	outcome := outcomeError
	defer func() { c.store.observe("fetch", outcome) }()

	repo, release, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer c.entry.refsMoved() // under the lock: RefGeneration

	auth, err := c.store.auth(ctx, c.loc)
	if err != nil {
		return err
	}

	log := c.logger(ctx, "")
	c.store.fetches.Add(1)
	remote := git.NewRemote(repo.Storer, &config.RemoteConfig{
		Name: remoteName, URLs: []string{c.loc.url}, Fetch: specs,
	})
	err = remote.FetchContext(ctx, &git.FetchOptions{
		RemoteName: remoteName,
		RefSpecs:   specs,
		Auth:       auth,
		Tags:       git.NoTags,
		Prune:      true,
		Force:      true,
	})
	switch {
	case err == nil:
		outcome = outcomeOK
	case errors.Is(err, git.NoErrAlreadyUpToDate):
		outcome = outcomeUpToDate
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		// A repository without any ref: nothing to fetch, everything to prune.
		pruned, perr := pruneAll(repo, specs)
		if perr != nil {
			return fmt.Errorf("gitstore: fetch %s: prune: %w", c.loc.name, perr)
		}
		outcome = outcomeUpToDate
		if pruned {
			outcome = outcomeOK
		}
	case errors.Is(err, git.NoMatchingRefSpecError{}):
		return fmt.Errorf("gitstore: fetch %s: %w: %w", c.loc.name, ErrNotFound, err)
	default:
		log.WithError(err).Warn("git fetch failed")
		return c.transportError("fetch", err)
	}
	log.WithFields(map[string]any{"outcome": outcome, "refspecs": specs}).Debug("git fetch")
	return nil
}

// pruneAll deletes the local refs the refspecs map remote refs to.
func pruneAll(repo *git.Repository, refspecs []config.RefSpec) (bool, error) {
	refs, err := repo.Storer.IterReferences()
	if err != nil {
		return false, err
	}
	var doomed []plumbing.ReferenceName
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		for _, rs := range refspecs {
			if rs.Reverse().Match(ref.Name()) {
				doomed = append(doomed, ref.Name())
				break
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	for _, name := range doomed {
		if err := repo.Storer.RemoveReference(name); err != nil {
			return false, err
		}
	}
	return len(doomed) > 0, nil
}

// transportError wraps an error from the remote, classifying authentication
// and missing repositories.
func (c *Cache) transportError(op string, err error) error {
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired),
		errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod):
		return fmt.Errorf("gitstore: %s %s: %w (check the installation token and its permissions): %w",
			op, c.loc.name, ErrAuthFailed, err)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		// GitHub also answers 404 when the token cannot see the repository.
		return fmt.Errorf("gitstore: %s %s: repository %w or not visible with these credentials: %w",
			op, c.loc.name, ErrNotFound, err)
	default:
		return fmt.Errorf("gitstore: %s %s: %w", op, c.loc.name, err)
	}
}
