package update

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// strategy updates the package at rel (relative to the root package) in
// m.local; isRoot is true for the package whose upstream was fetched.
type strategy func(m *merger, rel string, isRoot bool) error

// strategies are kpt's update strategies, keyed by upstream.updateStrategy.
var strategies = map[string]strategy{
	kptfile.ResourceMerge:      (*merger).resourceMerge,
	kptfile.FastForward:        (*merger).fastForward,
	kptfile.ForceDeleteReplace: (*merger).replace,
	kptfile.CopyMerge:          (*merger).copyMerge,
}

// merger is one run of Merge.
type merger struct {
	origin, updated, local tree
	upstreamCommented      bool   // merge comments written into origin and updated
	localAtRead            bool   // local's merge comments added as the merge reads it (commentLocal)
	side                   string // SideUpstream or SideLocal
	conflicts              []Conflict
}

// Merge updates local from origin to updated with the given strategy.
//
// It follows `kpt pkg update` step by step: the local Kptfile gets the new
// ref (and strategy override), merge comments and upstream identifiers are
// added to the three trees, the root package and then the subpackages the
// upstream tree holds are updated with the strategy their Kptfile names,
// upstreamLock is rewritten from opts.Lock, and merge comments are added to
// the result. With OnConflict SideFail and conflicts, the Result (merged as
// with SideUpstream) comes back with an error wrapping ErrConflicts: do not
// write it.
func Merge(origin, updated, local Files, opts Options) (Result, error) {
	side := opts.OnConflict
	switch side {
	case "", SideFail:
		side = SideUpstream
	case SideUpstream, SideLocal:
	default:
		return Result{}, fmt.Errorf("unknown onConflict %q: want %s, %s or %s", opts.OnConflict, SideUpstream, SideLocal, SideFail)
	}
	if opts.Strategy != "" && strategies[opts.Strategy] == nil {
		return Result{}, fmt.Errorf("unknown update strategy %q: want one of %s", opts.Strategy, strings.Join(kptfile.UpdateStrategies, ", "))
	}
	inputs := []struct {
		name  string
		files Files
	}{{"origin", origin}, {"updated", updated}, {"local", local}}
	for _, in := range inputs {
		if err := checkPaths(in.name, in.files); err != nil {
			return Result{}, err
		}
	}
	// A file that does not parse makes the merge fail; CheckFiles then
	// names it (parsing every file first would cost as much as the merge).
	explain := func(err error) error {
		for _, in := range inputs {
			if cerr := CheckFiles(in.name, in.files); cerr != nil {
				return cerr
			}
		}
		return err
	}
	if _, ok := local[kptfile.FileName]; !ok {
		return Result{}, fmt.Errorf("local: not a kpt package: no Kptfile at its root")
	}
	o, u, l, err := newTrees(origin, updated, local)
	if err != nil {
		return Result{}, fmt.Errorf("update: %w", err)
	}
	m := &merger{origin: o, updated: u, local: l, side: side}
	if err := m.run(opts); err != nil {
		return Result{}, explain(err)
	}
	files, err := m.local.files()
	if err != nil {
		return Result{}, fmt.Errorf("update: %w", err)
	}
	res := Result{Files: files, Conflicts: m.conflicts}
	sort.SliceStable(res.Conflicts, func(i, j int) bool { return res.Conflicts[i].File < res.Conflicts[j].File })
	if opts.OnConflict == SideFail && len(res.Conflicts) > 0 {
		return res, fmt.Errorf("update: %d field(s) changed both locally and upstream: %w", len(res.Conflicts), ErrConflicts)
	}
	return res, nil
}

// run is kpt's update of a root package whose upstream trees are fetched.
func (m *merger) run(opts Options) error {
	kf, _, err := m.local.readKptfile()
	if err != nil {
		return err
	}
	if kf.Upstream != nil {
		if ref := firstNonEmpty(opts.Ref, lockRef(opts.Lock)); ref != "" && kf.Upstream.Git != nil {
			kf.Upstream.Git.Ref = ref
		}
		if opts.Strategy != "" {
			kf.Upstream.UpdateStrategy = opts.Strategy
		}
	}
	if err := m.local.writeKptfile(kf); err != nil {
		return err
	}
	// kpt adds merge comments to the three trees first; origin and updated
	// get theirs as they are read (upstreamTrees), which gives the same
	// resources without writing and reading both trees once more; so does
	// local when the merge reads every file of it (commentLocal).
	if err := m.commentLocal(kf); err != nil {
		return err
	}

	// The root, then the subpackages with an upstream of their own that the
	// trees hold (kpt fetches nothing more for them: they come with the
	// root's upstream).
	stack := []string{"."}
	for len(stack) > 0 {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err := m.updatePackage(rel, rel == "."); err != nil {
			return err
		}
		subs, err := subpackages(pkgRemote, false, m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel))
		if err != nil {
			return err
		}
		for _, s := range subs {
			stack = append(stack, path.Join(rel, s))
		}
	}

	if opts.Lock != nil {
		kf, _, err := m.local.readKptfile()
		if err != nil {
			return err
		}
		lock := *opts.Lock
		kf.UpstreamLock = &kptfile.UpstreamLock{Type: kptfile.OriginGit, Git: &lock}
		if err := m.local.writeKptfile(kf); err != nil {
			return err
		}
	}
	return nil
}

func lockRef(l *kptfile.GitLock) string {
	if l == nil {
		return ""
	}
	return l.Ref
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// updatePackage updates the root package or a subpackage with an upstream,
// by whether it exists in origin, updated and local, with the strategy its
// local Kptfile names.
func (m *merger) updatePackage(rel string, isRoot bool) error {
	local, updated, origin := m.local.sub(rel), m.updated.sub(rel), m.origin.sub(rel)
	le := local.isPackage()
	ue, oe := isRoot || updated.isPackage(), isRoot || origin.isPackage()
	switch {
	case !oe && !le && !ue:
		return nil
	case !oe && le && ue:
		return fmt.Errorf("subpackage %q added in both upstream and local", rel)
	case !oe && !le && ue:
		m.upstreamTrees()
		return copyPackage(updated, local, !isRoot, false)
	case !oe && le && !ue, oe && !le:
		return nil
	case oe && le && !ue:
		m.upstreamTrees()
		same, err := sameTrees(origin, local)
		if err != nil || !same {
			return err
		}
		return local.remove(".")
	}
	kf, _, err := local.readKptfile()
	if err != nil {
		return err
	}
	name := ""
	if kf.Upstream != nil {
		name = kf.Upstream.UpdateStrategy
	}
	if name == "" {
		name = kptfile.ResourceMerge
	}
	s := strategies[name]
	if s == nil {
		return fmt.Errorf("%s: unknown update strategy %q", path.Join(rel, kptfile.FileName), name)
	}
	if name != kptfile.ResourceMerge {
		m.upstreamTrees()
	}
	return s(m, rel, isRoot)
}

// CheckFiles refuses paths that would escape the package, Kptfiles kpt
// would refuse and YAML that does not parse, naming the file (as dir/path)
// and the line. Merge runs it on its inputs (dir "origin", "updated",
// "local"); a CLI runs it first with the directories' own names.
func CheckFiles(dir string, files Files) error {
	if err := checkPaths(dir, files); err != nil {
		return err
	}
	for _, p := range sortedNames(files) {
		b := files[p]
		switch {
		case path.Base(p) == kptfile.FileName:
			if _, err := kptfile.ParseFile(path.Join(dir, p), b); err != nil {
				return err
			}
		case isKRMFile(p):
			if err := parses(b); err != nil {
				return &FileError{Path: path.Join(dir, p), Err: err}
			}
		}
	}
	return nil
}

// FileError is an input file that cannot be read; Err says why (with the
// line, for YAML).
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// parses reports the first YAML error of a stream of documents.
func parses(b []byte) error {
	d := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		if err := d.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// upstreamTrees adds the merge comments to the files of origin and updated,
// as kpt does before it merges, for the steps that copy or compare files.
func (m *merger) upstreamTrees() {
	if m.upstreamCommented {
		return
	}
	// best effort, as kpt: a tree that does not read fails the merge later
	_ = commentTree(m.updated)
	_ = commentTree(m.origin)
	m.upstreamCommented = true
}

// checkPaths refuses file paths that would escape the package.
func checkPaths(dir string, files Files) error {
	for _, p := range sortedNames(files) {
		if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "\\") {
			return fmt.Errorf("%s: bad file path %q", dir, p)
		}
	}
	return nil
}

func sortedNames(files Files) []string {
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}
