package gitstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// dirNode is a directory being built for a commit.
type dirNode struct {
	leaves map[string]*leaf
	dirs   map[string]*dirNode
}

// leaf is a file (content, mode) or a kept submodule entry (gitlink).
type leaf struct {
	content []byte
	mode    filemode.FileMode // zero: filemode.Regular
	gitlink plumbing.Hash     // non-zero for a submodule entry
}

func newNode() *dirNode {
	return &dirNode{leaves: map[string]*leaf{}, dirs: map[string]*dirNode{}}
}

// newDirNode builds the directory described by CommitRequest.Files.
func newDirNode(files map[string][]byte) (*dirNode, error) {
	root := newNode()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := validRelPath(p); err != nil {
			return nil, fmt.Errorf("file %q: %w", p, err)
		}
		if err := root.insert(p, &leaf{content: files[p]}); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// insert adds a leaf at p, refusing a path that is both a file and a
// directory.
func (n *dirNode) insert(p string, l *leaf) error {
	segs := strings.Split(p, "/")
	walked := ""
	for _, seg := range segs[:len(segs)-1] {
		walked = joinPath(walked, seg)
		if _, ok := n.leaves[seg]; ok {
			return fmt.Errorf("file %q conflicts with file %q", p, walked)
		}
		child, ok := n.dirs[seg]
		if !ok {
			child = newNode()
			n.dirs[seg] = child
		}
		n = child
	}
	last := segs[len(segs)-1]
	if _, ok := n.dirs[last]; ok {
		return fmt.Errorf("file %q conflicts with a directory of the same name", p)
	}
	if _, ok := n.leaves[last]; ok {
		return fmt.Errorf("file %q given twice", p)
	}
	n.leaves[last] = l
	return nil
}

// find returns the leaf at p, or nil.
func (n *dirNode) find(p string) *leaf {
	segs := strings.Split(p, "/")
	for _, seg := range segs[:len(segs)-1] {
		if n = n.dirs[seg]; n == nil {
			return nil
		}
	}
	return n.leaves[segs[len(segs)-1]]
}

// adopt applies the previous entries of the directory: files keep an
// executable or symbolic-link mode, submodules are kept where nothing new
// takes their place.
func (n *dirNode) adopt(old map[string]object.TreeEntry) {
	for p, e := range old {
		switch e.Mode {
		case filemode.Executable, filemode.Symlink:
			if l := n.find(p); l != nil {
				l.mode = e.Mode
			}
		case filemode.Submodule:
			_ = n.insert(p, &leaf{mode: filemode.Submodule, gitlink: e.Hash}) // a conflict means Files replaced it
		}
	}
}

// treeWriter writes objects into the cache, skipping those already there.
type treeWriter struct {
	ctx context.Context
	s   storer.EncodedObjectStorer
}

// oldEntries returns the non-directory entries under dir in the tree
// baseRoot, keyed by path relative to dir.
func (w *treeWriter) oldEntries(baseRoot plumbing.Hash, dir string) (map[string]object.TreeEntry, error) {
	if baseRoot.IsZero() {
		return nil, nil
	}
	root, err := object.GetTree(w.s, baseRoot)
	if err != nil {
		return nil, fmt.Errorf("parent tree: %w", err)
	}
	t, err := lookupDir(w.s, root, dir)
	if errors.Is(err, ErrNotFound) || errors.Is(err, errNotDir) {
		return nil, nil // a new directory; splice reports a file in the way
	}
	if err != nil {
		return nil, err
	}
	out := map[string]object.TreeEntry{}
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		for _, e := range t.Entries {
			p := joinPath(prefix, e.Name)
			if e.Mode != filemode.Dir {
				out[p] = e
				continue
			}
			sub, err := object.GetTree(w.s, e.Hash)
			if err != nil {
				return fmt.Errorf("tree %q: %w", joinPath(dir, p), err)
			}
			if err := walk(sub, p); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(t, "")
}

// writeDir writes the trees and blobs of n; ZeroHash if n holds nothing.
func (w *treeWriter) writeDir(n *dirNode) (plumbing.Hash, error) {
	if err := w.ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	entries := make([]object.TreeEntry, 0, len(n.leaves)+len(n.dirs))
	for name, l := range n.leaves {
		if !l.gitlink.IsZero() {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Submodule, Hash: l.gitlink})
			continue
		}
		h, err := w.writeBlob(l.content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		mode := l.mode
		if mode == 0 {
			mode = filemode.Regular
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: mode, Hash: h})
	}
	for name, child := range n.dirs {
		h, err := w.writeDir(child)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !h.IsZero() {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	return w.writeTree(entries)
}

// splice returns the tree base with the entry at segs replaced by the tree
// sub (removed if sub is ZeroHash); directories left empty disappear, so the
// result is ZeroHash for an empty tree. walked is the path of base.
func (w *treeWriter) splice(base plumbing.Hash, segs []string, sub plumbing.Hash, walked string) (plumbing.Hash, error) {
	if len(segs) == 0 {
		return sub, nil
	}
	var entries []object.TreeEntry
	if !base.IsZero() {
		t, err := object.GetTree(w.s, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("tree %q: %w", walked, err)
		}
		entries = append(entries, t.Entries...)
	}
	name := segs[0]
	here := joinPath(walked, name)
	var child plumbing.Hash
	idx := -1
	for i, e := range entries {
		if e.Name == name {
			if e.Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%q is not a directory in the parent commit", here)
			}
			idx, child = i, e.Hash
			break
		}
	}
	newChild, err := w.splice(child, segs[1:], sub, here)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if newChild == child {
		return base, nil
	}
	if idx >= 0 {
		entries = append(entries[:idx], entries[idx+1:]...)
	}
	if !newChild.IsZero() {
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: newChild})
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	return w.writeTree(entries)
}

// writeTree writes a tree with its entries in git's order (directories
// compare as if their name ended with "/").
func (w *treeWriter) writeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sortKey := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return sortKey(entries[i]) < sortKey(entries[j]) })
	obj := w.s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	return w.put(obj)
}

func (w *treeWriter) writeBlob(content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if w.s.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := w.s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := wr.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.put(obj)
}

// put stores obj unless an object with its hash exists.
func (w *treeWriter) put(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if w.s.HasEncodedObject(h) == nil {
		return h, nil
	}
	if _, err := w.s.SetEncodedObject(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write %s %s: %w", obj.Type(), h, err)
	}
	return h, nil
}
