package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/logfields"
)

// objectCacheSize bounds the decoded-object cache of each open repository.
const objectCacheSize = 16 * cache.MiByte

// repoEntry is one bare repository on disk, shared by every Cache handle
// of it. sem (capacity 1) is the per-repository lock; a channel rather than a
// sync.Mutex so that waiting for it honours a context.
type repoEntry struct {
	path string
	sem  chan struct{}

	// Guarded by sem.
	repo    *git.Repository
	storage *filesystem.Storage
	// reads counts what is read through repo (the Store's counts).
	reads  *readCounts
	closed bool
	// refGen counts the fetches and pushes that may have moved refs
	// (RefGeneration); atomic, read without sem.
	refGen atomic.Uint64
}

func newRepoEntry(path string, reads *readCounts) *repoEntry {
	return &repoEntry{path: path, sem: make(chan struct{}, 1), reads: reads}
}

func (e *repoEntry) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case e.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *repoEntry) unlock() { <-e.sem }

// open opens or initialises the bare repository. Called with the lock held.
func (e *repoEntry) open(loc location) (*git.Repository, error) {
	if e.closed {
		return nil, ErrClosed
	}
	if e.repo != nil {
		return e.repo, nil
	}
	if err := os.MkdirAll(e.path, 0o755); err != nil {
		return nil, fmt.Errorf("gitstore: create cache %s: %w", e.path, err)
	}
	st := filesystem.NewStorage(osfs.New(e.path), cache.NewObjectLRU(objectCacheSize))
	counted := countingStorage{Storage: st, reads: e.reads}
	repo, err := git.Open(counted, nil)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		repo, err = initRepo(counted, loc)
	}
	if err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("gitstore: open cache %s: %w", e.path, err)
	}
	e.repo, e.storage = repo, st
	return repo, nil
}

// initRepo creates the bare repository with an "origin" remote, so the cache
// can also be inspected and fetched with the git CLI.
func initRepo(st storage.Storer, loc location) (*git.Repository, error) {
	repo, err := git.Init(st, nil)
	if err != nil {
		return nil, err
	}
	_, err = repo.CreateRemote(&config.RemoteConfig{
		Name:  remoteName,
		URLs:  []string{loc.url},
		Fetch: []config.RefSpec{BranchesRefSpec},
	})
	if err != nil && !errors.Is(err, git.ErrRemoteExists) {
		return nil, err
	}
	return repo, nil
}

// close waits for the running operation and releases open files.
func (e *repoEntry) close(log logrus.FieldLogger) {
	e.sem <- struct{}{}
	defer e.unlock()
	e.closed = true
	e.release(log)
}

// release closes the open repository (its files and caches) until the
// next open. Called with the lock held.
func (e *repoEntry) release(log logrus.FieldLogger) {
	if e.storage != nil {
		if err := e.storage.Close(); err != nil {
			log.WithError(err).WithField("path", e.path).Warn("closing git cache")
		}
	}
	e.repo, e.storage = nil, nil
}

// Cache is a handle on the bare cache of one remote repository. Handles are
// cheap; all handles of a repository share its lock, so every method is safe
// for concurrent use.
type Cache struct {
	store *Store
	entry *repoEntry
	loc   location
}

// Name returns "OWNER/REPO".
func (c *Cache) Name() string { return c.loc.name }

// URL returns the remote URL.
func (c *Cache) URL() string { return c.loc.url }

// Path returns the bare repository directory.
func (c *Cache) Path() string { return c.loc.path }

// acquire takes the repository lock and opens the repository. The returned
// function releases the lock.
func (c *Cache) acquire(ctx context.Context) (*git.Repository, func(), error) {
	if err := c.entry.lock(ctx); err != nil {
		return nil, nil, fmt.Errorf("gitstore: waiting for %s: %w", c.loc.name, err)
	}
	repo, err := c.entry.open(c.loc)
	if err != nil {
		c.entry.unlock()
		return nil, nil, err
	}
	c.store.used(c.entry)
	return repo, c.entry.unlock, nil
}

// With runs fn with the repository while holding its lock, for reads this
// package does not offer (history walks, diffs). fn must not keep the
// repository or objects read from it after returning, and must not call
// methods of this Cache (the lock is not reentrant).
func (c *Cache) With(ctx context.Context, fn func(*git.Repository) error) error {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return fn(repo)
}

func (c *Cache) logger(ctx context.Context, ref plumbing.ReferenceName) logrus.FieldLogger {
	log := logfields.Apply(ctx, c.store.log.WithField("repository", c.loc.name))
	if ref != "" {
		log = log.WithField("ref", ref.String())
	}
	return log
}
