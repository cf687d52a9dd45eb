package packages

import (
	"path"
	"sort"
	"strings"
)

// KptfileName is the file that makes a directory a package.
const KptfileName = "Kptfile"

// Package is a directory holding a Kptfile.
type Package struct {
	// Name is the path from the packages root, e.g. "network/upf".
	Name string
	// Dir is the path from the repository root, e.g. "pkgs/network/upf"
	// with packages.root "pkgs" (equal to Name when the root is ".").
	Dir string
	// Parent is the Name of the nearest enclosing package for a
	// subpackage, "" for a top-level package.
	Parent string
	// Subpackages are the Names of the packages whose nearest enclosing
	// package is this one (direct subpackages only), sorted.
	Subpackages []string
	// Err is set on a top-level package whose Name is not a valid package
	// name (ValidateName): it cannot have drafts or revisions, and the bot
	// says so instead of ignoring it. Subpackages never become refs and are
	// not checked.
	Err error
}

// TopLevel reports whether p is a package of its own (not a subpackage).
func (p Package) TopLevel() bool { return p.Parent == "" }

// NormalizeRoot turns a packages.root setting into a clean repository path:
// "" for the repository root ("", ".", "./"), else without "./" or trailing
// slashes.
func NormalizeRoot(root string) string {
	root = path.Clean("/" + strings.TrimSpace(root))
	return strings.TrimPrefix(root, "/")
}

// Discover finds the packages in a tree given all its file paths
// (slash-separated, relative to the repository root, as git lists them).
//
// Every directory under root holding a Kptfile is a package named by its
// path relative to root; a Kptfile directory nested in another is a
// subpackage of the nearest one (as kpt nests packages). A Kptfile directly
// at root is not a package (a package needs a name) and does not make the
// packages below it subpackages. Paths outside root, and paths that are not
// clean relative paths, are ignored. The result is sorted by Name.
func Discover(files []string, root string) []Package {
	root = NormalizeRoot(root)
	dirs := map[string]bool{}
	for _, f := range files {
		if f == "" || strings.HasPrefix(f, "/") || path.Clean(f) != f || f == ".." || strings.HasPrefix(f, "../") {
			continue
		}
		if path.Base(f) != KptfileName {
			continue
		}
		dir := path.Dir(f)
		if dir == "." {
			continue // at the repository root: root "" holds no package itself
		}
		if root != "" && !strings.HasPrefix(dir, root+"/") {
			continue // outside root, or root itself
		}
		dirs[dir] = true
	}
	byDir := make(map[string]*Package, len(dirs))
	ordered := make([]string, 0, len(dirs))
	for dir := range dirs {
		ordered = append(ordered, dir)
	}
	sort.Strings(ordered)
	for _, dir := range ordered {
		name := dir
		if root != "" {
			name = strings.TrimPrefix(dir, root+"/")
		}
		byDir[dir] = &Package{Name: name, Dir: dir}
	}
	for _, dir := range ordered {
		p := byDir[dir]
		for up := path.Dir(dir); up != "." && up != root; up = path.Dir(up) {
			if parent, ok := byDir[up]; ok {
				p.Parent = parent.Name
				parent.Subpackages = append(parent.Subpackages, p.Name)
				break
			}
		}
	}
	out := make([]Package, 0, len(byDir))
	for _, dir := range ordered {
		p := byDir[dir]
		if p.Parent == "" {
			p.Err = ValidateName(p.Name)
		}
		sort.Strings(p.Subpackages)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PackageOf returns the top-level package among pkgs that holds file (a
// path from the repository root), including files of its subpackages: the
// package whose revision a change to file belongs to.
func PackageOf(pkgs []Package, file string) (Package, bool) {
	var best Package
	found := false
	for _, p := range pkgs {
		if !p.TopLevel() || !strings.HasPrefix(file, p.Dir+"/") {
			continue
		}
		if !found || len(p.Dir) > len(best.Dir) {
			best, found = p, true
		}
	}
	return best, found
}
