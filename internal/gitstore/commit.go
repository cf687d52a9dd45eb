package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// CommitRequest describes a commit that replaces one directory.
type CommitRequest struct {
	// Parent is the commit to build on; ZeroHash makes a root commit.
	Parent plumbing.Hash
	// Dir is the directory to replace ("" or "." for the whole tree).
	Dir string
	// Files is the full new content of Dir, keyed by slash-separated path
	// relative to Dir. Nil (or empty) deletes Dir, and parent directories
	// left empty with it. Files that existed in Dir keep their mode
	// (executable, symbolic link); new files are 0644. Submodule entries in
	// Dir are kept unless Files is nil or puts something at their path.
	Files map[string][]byte
	// Message is the commit message; a final newline is added if missing.
	Message string
	// Author is required (Name at least). A zero When means now.
	Author object.Signature
	// Committer defaults to Author. A zero When means now.
	Committer object.Signature
	// AllowEmpty makes a commit even if the tree does not change; otherwise
	// such a request returns the parent and ErrNoChanges.
	AllowEmpty bool
	// Onto, when set, makes a merge commit of Parent (first parent) and
	// Onto, whose tree is Onto's with Dir replaced by Files: the branch at
	// Parent takes Onto's history, and a diff from their merge base shows
	// Dir's difference from Onto alone. Parent must be set; the commit is
	// made even when its tree equals Parent's.
	Onto plumbing.Hash
}

// Commit writes the blobs, trees and commit of req into the cache (no
// worktree, no ref is moved) and returns the new commit; Push publishes it.
// Every path outside Dir keeps exactly the parent's entry.
func (c *Cache) Commit(ctx context.Context, req CommitRequest) (plumbing.Hash, error) {
	fail := func(err error) (plumbing.Hash, error) {
		return plumbing.ZeroHash, fmt.Errorf("gitstore: commit in %s: %w", c.loc.name, err)
	}
	dir, err := cleanDir(req.Dir)
	if err != nil {
		return fail(err)
	}
	files, err := newDirNode(req.Files)
	if err != nil {
		return fail(err)
	}
	author, committer, err := signatures(req.Author, req.Committer)
	if err != nil {
		return fail(err)
	}

	repo, release, err := c.acquire(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer release()

	w := treeWriter{ctx: ctx, s: repo.Storer}
	var baseRoot plumbing.Hash
	var parents []plumbing.Hash
	if !req.Parent.IsZero() {
		parent, err := object.GetCommit(repo.Storer, req.Parent)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return fail(fmt.Errorf("parent commit %s %w in the cache (fetch first?)", req.Parent, ErrNotFound))
		}
		if err != nil {
			return fail(fmt.Errorf("parent commit %s: %w", req.Parent, err))
		}
		baseRoot, parents = parent.TreeHash, []plumbing.Hash{parent.Hash}
	}
	if !req.Onto.IsZero() {
		if req.Parent.IsZero() {
			return fail(errors.New("a merge commit (Onto) needs a Parent"))
		}
		onto, err := object.GetCommit(repo.Storer, req.Onto)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return fail(fmt.Errorf("commit %s to merge %w in the cache (fetch first?)", req.Onto, ErrNotFound))
		}
		if err != nil {
			return fail(fmt.Errorf("commit %s to merge: %w", req.Onto, err))
		}
		baseRoot, parents = onto.TreeHash, append(parents, onto.Hash)
	}

	var newSub plumbing.Hash
	if req.Files != nil {
		old, err := w.oldEntries(baseRoot, dir)
		if err != nil {
			return fail(err)
		}
		files.adopt(old)
		if newSub, err = w.writeDir(files); err != nil {
			return fail(err)
		}
	}
	var segs []string
	if dir != "" {
		segs = strings.Split(dir, "/")
	}
	newRoot, err := w.splice(baseRoot, segs, newSub, "")
	if err != nil {
		return fail(err)
	}
	if newRoot.IsZero() {
		if newRoot, err = w.writeTree(nil); err != nil {
			return fail(err)
		}
	}
	if len(parents) == 1 && newRoot == baseRoot && !req.AllowEmpty {
		return req.Parent, fmt.Errorf("gitstore: commit in %s: %w: %s is unchanged", c.loc.name, ErrNoChanges, displayDir(dir))
	}

	cm := &object.Commit{
		Author: author, Committer: committer, Message: endLine(req.Message),
		TreeHash: newRoot, ParentHashes: parents,
	}
	h, err := storeObject(repo.Storer, cm)
	if err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	c.logger(ctx, "").WithFields(map[string]any{"commit": h.String(), "dir": displayDir(dir)}).Debug("git commit")
	return h, nil
}

// endLine ends a commit or tag message with a newline.
func endLine(msg string) string {
	if !strings.HasSuffix(msg, "\n") {
		return msg + "\n"
	}
	return msg
}

// storeObject encodes o (a commit or a tag) into s.
func storeObject(s storer.EncodedObjectStorer, o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode: %w", err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write: %w", err)
	}
	return h, nil
}

func displayDir(dir string) string {
	if dir == "" {
		return "the root"
	}
	return dir
}

// signatures validates and completes the author and committer.
func signatures(author, committer object.Signature) (object.Signature, object.Signature, error) {
	if author.Name == "" {
		return author, committer, errors.New("author name is required")
	}
	if committer.Name == "" {
		committer = author
	}
	now := time.Now()
	if author.When.IsZero() {
		author.When = now
	}
	if committer.When.IsZero() {
		committer.When = now
	}
	for _, s := range []object.Signature{author, committer} {
		if strings.ContainsAny(s.Name+s.Email, "<>\n\x00") {
			return author, committer, fmt.Errorf("invalid signature %q <%s>", s.Name, s.Email)
		}
	}
	return author, committer, nil
}
