package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// maxPeel bounds tag-of-tag chains.
const maxPeel = 16

var errNotDir = errors.New("is not a directory")

// ResolveRef returns the commit a ref names in the cache, as last fetched or
// pushed. Accepted forms:
//   - a full object id (40 hex digits);
//   - "refs/heads/B" (the remote's branch B, mirrored as
//     refs/remotes/origin/B; a local refs/heads/B is used if there is no
//     mirror);
//   - any other full ref name, looked up as is (refs/tags/T, refs/remotes/...);
//   - a short name N: refs/remotes/origin/N, then refs/tags/N.
//
// Annotated tags are peeled to their commit. A missing ref is ErrNotFound.
func (c *Cache) ResolveRef(ctx context.Context, name string) (plumbing.Hash, error) {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer release()
	h, err := resolveRef(repo, name)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitstore: resolve %q in %s: %w", name, c.loc.name, err)
	}
	return h, nil
}

func resolveRef(repo *git.Repository, name string) (plumbing.Hash, error) {
	if len(name) == 40 && plumbing.IsHash(name) {
		return PeelToCommit(repo.Storer, plumbing.NewHash(name))
	}
	for _, candidate := range refCandidates(name) {
		ref, err := storer.ResolveReference(repo.Storer, candidate)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return PeelToCommit(repo.Storer, ref.Hash())
	}
	return plumbing.ZeroHash, fmt.Errorf("ref %w", ErrNotFound)
}

func refCandidates(name string) []plumbing.ReferenceName {
	switch {
	case strings.HasPrefix(name, "refs/heads/"):
		return []plumbing.ReferenceName{
			plumbing.NewRemoteReferenceName(remoteName, strings.TrimPrefix(name, "refs/heads/")),
			plumbing.ReferenceName(name),
		}
	case strings.HasPrefix(name, "refs/"):
		return []plumbing.ReferenceName{plumbing.ReferenceName(name)}
	case name == "":
		return nil
	default:
		return []plumbing.ReferenceName{
			plumbing.NewRemoteReferenceName(remoteName, name),
			plumbing.NewTagReferenceName(name),
		}
	}
}

// PeelToCommit follows annotated tags down to a commit (at most maxPeel
// tags); an object missing from s is ErrNotFound, wrapped.
func PeelToCommit(s storer.EncodedObjectStorer, h plumbing.Hash) (plumbing.Hash, error) {
	for range maxPeel {
		obj, err := s.EncodedObject(plumbing.AnyObject, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("object %s %w in the cache (fetch first?)", h, ErrNotFound)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(s, obj)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			h = tag.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("object %s is a %s, not a commit", h, obj.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("tag chain longer than %d", maxPeel)
}

// ListRefs returns the cache's refs whose name starts with prefix (for
// example "refs/tags/network/upf/v" or "refs/remotes/origin/drafts/"), sorted
// by name, unpeeled.
func (c *Cache) ListRefs(ctx context.Context, prefix string) ([]*plumbing.Reference, error) {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("gitstore: list refs of %s: %w", c.loc.name, err)
	}
	var refs []*plumbing.Reference
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), prefix) {
			refs = append(refs, ref)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitstore: list refs of %s: %w", c.loc.name, err)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name() < refs[j].Name() })
	return refs, nil
}

// TreeHash returns the git tree id of dir ("" for the root) at commit: a
// content digest of the package, equal for equal contents and modes
// whatever the commit.
func (c *Cache) TreeHash(ctx context.Context, commit plumbing.Hash, dir string) (plumbing.Hash, error) {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer release()
	h, err := TreeHashIn(repo.Storer, commit, dir)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitstore: tree of %s %s:%s: %w", c.loc.name, commit, dir, err)
	}
	return h, nil
}

// TreeHashIn is TreeHash over any repository's storage (a caller that
// holds a *git.Repository, in Cache.With or opened itself).
func TreeHashIn(s storer.EncodedObjectStorer, commit plumbing.Hash, dir string) (plumbing.Hash, error) {
	t, err := dirTree(s, commit, dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return t.Hash, nil
}

// ReadTree returns the files under dir ("" for the root) at commit, keyed by
// their slash-separated path relative to dir. Symbolic links are returned
// with their target as content; submodules are skipped. The result is
// bounded by Options.MaxTreeFiles and Options.MaxTreeBytes (ErrTreeTooLarge).
func (c *Cache) ReadTree(ctx context.Context, commit plumbing.Hash, dir string) (map[string][]byte, error) {
	repo, release, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	files, err := ReadTreeIn(ctx, repo.Storer, commit, dir, c.store.opts.MaxTreeFiles, c.store.opts.MaxTreeBytes)
	if err != nil {
		return nil, fmt.Errorf("gitstore: read %s %s:%s: %w", c.loc.name, commit, dir, err)
	}
	return files, nil
}

// ReadTreeIn is ReadTree over any repository's storage, bounded by
// maxFiles and maxBytes (ErrTreeTooLarge). A missing dir is ErrNotFound.
func ReadTreeIn(ctx context.Context, s storer.EncodedObjectStorer, commit plumbing.Hash, dir string, maxFiles int, maxBytes int64) (map[string][]byte, error) {
	t, err := dirTree(s, commit, dir)
	if err != nil {
		return nil, err
	}
	return readTree(ctx, s, t, maxFiles, maxBytes)
}

// ReadTreeObject is ReadTreeIn for a tree id (as TreeHashIn gives it).
func ReadTreeObject(ctx context.Context, s storer.EncodedObjectStorer, tree plumbing.Hash, maxFiles int, maxBytes int64) (map[string][]byte, error) {
	t, err := object.GetTree(s, tree)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", tree, err)
	}
	return readTree(ctx, s, t, maxFiles, maxBytes)
}

func readTree(ctx context.Context, s storer.EncodedObjectStorer, t *object.Tree, maxFiles int, maxBytes int64) (map[string][]byte, error) {
	r := treeReader{ctx: ctx, s: s, maxFiles: maxFiles, maxBytes: maxBytes, files: make(map[string][]byte)}
	if err := r.read(t, ""); err != nil {
		return nil, err
	}
	return r.files, nil
}

// dirTree returns the tree of dir at commit.
func dirTree(s storer.EncodedObjectStorer, commit plumbing.Hash, dir string) (*object.Tree, error) {
	dir, err := cleanDir(dir)
	if err != nil {
		return nil, err
	}
	h, err := PeelToCommit(s, commit)
	if err != nil {
		return nil, err
	}
	cm, err := object.GetCommit(s, h)
	if err != nil {
		return nil, err
	}
	t, err := object.GetTree(s, cm.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("root tree: %w", err)
	}
	return lookupDir(s, t, dir)
}

// lookupDir returns the subtree at dir (clean, "" for t itself).
func lookupDir(s storer.EncodedObjectStorer, t *object.Tree, dir string) (*object.Tree, error) {
	if dir == "" {
		return t, nil
	}
	walked := ""
	for _, seg := range strings.Split(dir, "/") {
		walked = joinPath(walked, seg)
		e := findEntry(t, seg)
		if e == nil {
			return nil, fmt.Errorf("directory %q %w", walked, ErrNotFound)
		}
		if e.Mode != filemode.Dir {
			return nil, fmt.Errorf("%q %w", walked, errNotDir)
		}
		var err error
		if t, err = object.GetTree(s, e.Hash); err != nil {
			return nil, fmt.Errorf("tree %q: %w", walked, err)
		}
	}
	return t, nil
}

func findEntry(t *object.Tree, name string) *object.TreeEntry {
	for i := range t.Entries {
		if t.Entries[i].Name == name {
			return &t.Entries[i]
		}
	}
	return nil
}

// treeReader collects the blobs of a tree within bounds.
type treeReader struct {
	ctx      context.Context
	s        storer.EncodedObjectStorer
	maxFiles int
	maxBytes int64

	files map[string][]byte
	bytes int64
}

func (r *treeReader) read(t *object.Tree, prefix string) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := joinPath(prefix, e.Name)
		switch e.Mode {
		case filemode.Dir:
			sub, err := object.GetTree(r.s, e.Hash)
			if err != nil {
				return fmt.Errorf("tree %q: %w", p, err)
			}
			if err := r.read(sub, p); err != nil {
				return err
			}
		case filemode.Submodule:
			continue
		default:
			if err := r.readBlob(p, e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *treeReader) readBlob(p string, h plumbing.Hash) error {
	if len(r.files) >= r.maxFiles {
		return fmt.Errorf("%w: more than %d files", ErrTreeTooLarge, r.maxFiles)
	}
	blob, err := object.GetBlob(r.s, h)
	if err != nil {
		return fmt.Errorf("blob %q: %w", p, err)
	}
	if r.bytes+blob.Size > r.maxBytes {
		return fmt.Errorf("%w: more than %d bytes (at %q)", ErrTreeTooLarge, r.maxBytes, p)
	}
	rd, err := blob.Reader()
	if err != nil {
		return fmt.Errorf("blob %q: %w", p, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, blob.Size+1))
	if err != nil {
		return fmt.Errorf("blob %q: %w", p, err)
	}
	if int64(len(data)) != blob.Size {
		return fmt.Errorf("blob %q: size %d, read %d bytes", p, blob.Size, len(data))
	}
	r.bytes += blob.Size
	r.files[p] = data
	return nil
}
