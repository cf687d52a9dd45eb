package update

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// tree is one of the three package trees of a merge, held in an in-memory
// file system so that kyaml's package readers and writers (the ones kpt
// runs on disk) run on it unchanged.
type tree struct {
	fs   filesys.FileSystem
	root string // "/origin", "/updated" or "/local"
}

// newTrees loads the three packages into one in-memory file system.
func newTrees(origin, updated, local Files) (o, u, l tree, err error) {
	fs := filesys.MakeFsInMemory()
	o, u, l = tree{fs, "/origin"}, tree{fs, "/updated"}, tree{fs, "/local"}
	for _, t := range []struct {
		tree
		files Files
	}{{o, origin}, {u, updated}, {l, local}} {
		if err = fs.MkdirAll(t.root); err != nil {
			return o, u, l, err
		}
		for p, b := range t.files {
			if err = t.write(p, b); err != nil {
				return o, u, l, err
			}
		}
	}
	return o, u, l, nil
}

// sub is the tree of the subpackage at rel.
func (t tree) sub(rel string) tree {
	if rel == "." || rel == "" {
		return t
	}
	return tree{t.fs, path.Join(t.root, rel)}
}

func (t tree) abs(rel string) string { return path.Join(t.root, rel) }

func (t tree) read(rel string) ([]byte, error) { return t.fs.ReadFile(t.abs(rel)) }

func (t tree) write(rel string, b []byte) error {
	if err := t.fs.MkdirAll(path.Dir(t.abs(rel))); err != nil {
		return err
	}
	return t.fs.WriteFile(t.abs(rel), b)
}

func (t tree) remove(rel string) error { return t.fs.RemoveAll(t.abs(rel)) }

func (t tree) exists(rel string) bool { return t.fs.Exists(t.abs(rel)) }

// dirExists reports whether the directory of the tree exists.
func (t tree) dirExists() bool { return t.fs.Exists(t.root) && t.fs.IsDir(t.root) }

// isPackage reports whether the tree's root holds a Kptfile.
func (t tree) isPackage() bool { return t.exists(kptfile.FileName) }

// walk lists every file under the tree ("/"-separated, relative), sorted,
// skipping .git directories.
func (t tree) walk() ([]string, error) {
	if !t.dirExists() {
		return nil, nil
	}
	var out []string
	err := t.fs.Walk(t.root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if info.Name() == ".git" && p != t.root {
				return filepath.SkipDir
			}
			return nil
		}
		out = append(out, strings.TrimPrefix(strings.TrimPrefix(p, t.root), "/"))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// ownFiles lists the files of the package itself: those under a
// subdirectory holding a Kptfile (a subpackage) are left out.
func (t tree) ownFiles() ([]string, error) {
	all, err := t.walk()
	if err != nil {
		return nil, err
	}
	subs := t.packageDirs(all)
	var out []string
	for _, f := range all {
		if !underAny(f, subs) {
			out = append(out, f)
		}
	}
	return out, nil
}

// packageDirs lists the directories (other than the root) that hold a
// Kptfile, from a file list.
func (t tree) packageDirs(all []string) []string {
	var dirs []string
	for _, f := range all {
		if path.Base(f) == kptfile.FileName && f != kptfile.FileName {
			dirs = append(dirs, path.Dir(f))
		}
	}
	return dirs
}

func underAny(f string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(f, d+"/") {
			return true
		}
	}
	return false
}

// files returns the whole tree as Files.
func (t tree) files() (Files, error) {
	all, err := t.walk()
	if err != nil {
		return nil, err
	}
	out := make(Files, len(all))
	for _, f := range all {
		b, err := t.read(f)
		if err != nil {
			return nil, err
		}
		out[f] = b
	}
	return out, nil
}

// readKptfile parses the tree's root Kptfile; ok is false when there is none.
func (t tree) readKptfile() (k *kptfile.Kptfile, ok bool, err error) {
	if !t.isPackage() {
		return nil, false, nil
	}
	b, err := t.read(kptfile.FileName)
	if err != nil {
		return nil, false, err
	}
	f, err := kptfile.ParseFile(t.abs(kptfile.FileName)[1:], b)
	if err != nil {
		return nil, false, err
	}
	return f.Kptfile(), true, nil
}

// writeKptfile writes k as kpt writes the Kptfiles it changes.
func (t tree) writeKptfile(k *kptfile.Kptfile) error {
	b, err := kptfile.Marshal(k)
	if err != nil {
		return err
	}
	return t.write(kptfile.FileName, b)
}

// subpackages lists the subpackages (directories with a Kptfile, relative
// to the tree) of the given trees, union, parents first. With local only,
// those whose Kptfile has no upstream; with remote only those that have
// one; recurse descends into subpackages found.
func subpackages(kind pkgKind, recurse bool, trees ...tree) ([]string, error) {
	seen := map[string]bool{}
	for _, t := range trees {
		all, err := t.walk()
		if err != nil {
			return nil, err
		}
		dirs := t.packageDirs(all)
		sort.Strings(dirs)
		var taken []string
		for _, d := range dirs {
			if !recurse && underAny(d+"/x", taken) {
				continue
			}
			k, _, err := t.sub(d).readKptfile()
			if err != nil {
				return nil, fmt.Errorf("subpackage %s: %w", d, err)
			}
			hasUpstream := k.Upstream != nil
			if kind == pkgAll || (kind == pkgLocal && !hasUpstream) || (kind == pkgRemote && hasUpstream) {
				seen[d] = true
			}
			taken = append(taken, d)
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	// kpt orders them by path: a parent before its subpackages.
	sort.Strings(out)
	return out, nil
}

type pkgKind int

const (
	pkgAll pkgKind = iota
	pkgLocal
	pkgRemote
)
