package gitstore

import (
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// refsMoved notes a fetch or push through the entry: refs may have moved.
func (e *repoEntry) refsMoved() { e.refGen.Add(1) }

// RefGeneration changes whenever refs in the cache may have moved (a fetch
// or a push, by any user of the cache). A reader that remembers what refs
// resolved to (core.Session's snapshot) keeps its answers while the
// generation is the one it read them at.
func (c *Cache) RefGeneration() uint64 { return c.entry.refGen.Load() }

// ReadFile returns the file at path (slash-separated, relative to the
// root) at commit: ok false when there is no such file (nothing there, a
// directory, a submodule). A symbolic link's content is its target, as
// ReadTree gives it. Only the directories on the way and the file's blob
// are read, not the rest of its directory. A file larger than
// Options.MaxTreeBytes is ErrTreeTooLarge.
func (c *Cache) ReadFile(ctx context.Context, commit plumbing.Hash, path string) (data []byte, ok bool, err error) {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	data, ok, err = ReadFileIn(repo.Storer, commit, path, c.store.opts.MaxTreeBytes)
	if err != nil {
		return nil, false, fmt.Errorf("gitstore: read %s %s:%s: %w", c.loc.name, commit, path, err)
	}
	return data, ok, nil
}

// ReadFileIn is ReadFile over any repository's storage, bounded by
// maxBytes (0: no bound). A missing commit or directory is ErrNotFound, as
// for ReadTreeIn; no file of that name in the directory is ok false.
func ReadFileIn(s storer.EncodedObjectStorer, commit plumbing.Hash, path string, maxBytes int64) ([]byte, bool, error) {
	dir, name := "", path
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			dir, name = path[:i], path[i+1:]
			break
		}
	}
	t, err := dirTree(s, commit, dir)
	if err != nil {
		return nil, false, err
	}
	entry := findEntry(t, name)
	if entry == nil || entry.Mode == filemode.Dir || entry.Mode == filemode.Submodule {
		return nil, false, nil
	}
	blob, err := object.GetBlob(s, entry.Hash)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if maxBytes > 0 && blob.Size > maxBytes {
		return nil, false, fmt.Errorf("%s is %d bytes: %w", path, blob.Size, ErrTreeTooLarge)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return data, true, nil
}
