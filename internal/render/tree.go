package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	kfile "github.com/porchbot/porchbot/internal/kptfile"
)

// pkgNode is one package of the tree: its directory, its Kptfile and
// pipeline (the repository's guardrails appended to the root's), and its
// direct subpackages.
type pkgNode struct {
	abs      string
	rel      string // relative to the root, "." for the root
	kf       *kfile.Kptfile
	pipeline *kfile.Pipeline
	subs     []*pkgNode
	// indexes from which the pipeline's functions are repository guardrails
	guardMutFrom, guardValFrom int
}

// treeReader reads the package tree: the packages (Kptfiles decoded and
// checked) and each package's own resources, as kpt reads them.
type treeReader struct{ r *renderer }

func (t treeReader) Read() ([]*yaml.RNode, error) {
	r := t.r
	if err := r.checkTreeLimits(); err != nil {
		return nil, err
	}
	rootPkg, err := r.newPkgNode(r.root, nil)
	if err != nil {
		return nil, err
	}
	if err := r.addGuardrails(rootPkg); err != nil {
		return nil, err
	}
	r.rootPkg = rootPkg
	r.readRenderAnnotations(rootPkg)
	var all []*yaml.RNode
	var walk func(p *pkgNode) error
	walk = func(p *pkgNode) error {
		subs, err := r.directSubpackages(p)
		if err != nil {
			return err
		}
		p.subs = subs
		for _, s := range subs {
			if err := walk(s); err != nil {
				return err
			}
		}
		local, err := r.localResources(p)
		if err != nil {
			return err
		}
		for _, n := range local {
			path, _ := fileAnnotations(n)
			r.inputFiles[filepath.Join(p.rel, filepath.Clean(path))] = true
		}
		all = append(all, local...)
		return nil
	}
	if err := walk(rootPkg); err != nil {
		return nil, err
	}
	return all, nil
}

// addGuardrails appends the repository-wide functions to the root pipeline.
func (r *renderer) addGuardrails(rootNode *pkgNode) error {
	if len(r.opts.ExtraMutators)+len(r.opts.ExtraValidators) == 0 {
		return nil
	}
	extra := &kfile.Pipeline{Mutators: r.opts.ExtraMutators, Validators: r.opts.ExtraValidators}
	if err := validatePipeline(r.fsys, r.root, "the repository's render guardrails", extra); err != nil {
		return err
	}
	pl := &kfile.Pipeline{}
	if rootNode.pipeline != nil {
		pl.Mutators = append(pl.Mutators, rootNode.pipeline.Mutators...)
		pl.Validators = append(pl.Validators, rootNode.pipeline.Validators...)
	}
	rootNode.guardMutFrom, rootNode.guardValFrom = len(pl.Mutators), len(pl.Validators)
	pl.Mutators = append(pl.Mutators, r.opts.ExtraMutators...)
	pl.Validators = append(pl.Validators, r.opts.ExtraValidators...)
	rootNode.pipeline = pl
	return nil
}

func (r *renderer) newPkgNode(abs string, kf *kfile.Kptfile) (*pkgNode, error) {
	rel, err := filepath.Rel(r.root, abs)
	if err != nil {
		return nil, err
	}
	if kf == nil {
		if kf, err = r.readKptfile(abs); err != nil {
			return nil, err
		}
	}
	if err := validatePipeline(r.fsys, abs, r.kptfilePath(abs), kf.Pipeline); err != nil {
		return nil, err
	}
	n := &pkgNode{abs: abs, rel: filepath.ToSlash(rel), kf: kf, pipeline: kf.Pipeline}
	if kf.Pipeline != nil {
		n.guardMutFrom, n.guardValFrom = len(kf.Pipeline.Mutators), len(kf.Pipeline.Validators)
	}
	return n, nil
}

// kptfilePath is the path of the Kptfile of the package at abs as users
// know it: under Options.DisplayDir when set.
func (r *renderer) kptfilePath(abs string) string {
	return r.displayPath(filepath.Join(abs, kfile.FileName))
}

// displayPath is abs as users know it: relative to the root package under
// Options.DisplayDir when that is set, else abs.
func (r *renderer) displayPath(abs string) string {
	if r.opts.DisplayDir == "" {
		return abs
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(filepath.Join(r.opts.DisplayDir, rel))
}

// readKptfile reads and decodes the Kptfile of the package at dir with the
// Kptfile model (internal/kptfile): kpt's schema, unknown fields refused.
func (r *renderer) readKptfile(dir string) (*kfile.Kptfile, error) {
	file := r.kptfilePath(dir)
	abs := filepath.Join(dir, kfile.FileName)
	if !r.fsys.Exists(abs) {
		return nil, &KptfileError{File: file, Missing: true}
	}
	b, err := r.fsys.ReadFile(abs)
	if err != nil {
		return nil, &KptfileError{File: file, Err: err}
	}
	f, err := kfile.ParseFile(file, b)
	if err != nil {
		return nil, &KptfileError{File: file, Err: err}
	}
	return f.Kptfile(), nil
}

// directSubpackages finds the nearest directories below pkg holding a
// Kptfile, sorted, reading each Kptfile (as kpt does while it looks).
func (r *renderer) directSubpackages(pkg *pkgNode) ([]*pkgNode, error) {
	type found struct {
		abs string
		kf  *kfile.Kptfile
	}
	var subs []found
	err := r.fsys.Walk(pkg.abs, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return fmt.Errorf("failed to read package %s: %w", pkg.abs, err)
		}
		if path == pkg.abs || !info.IsDir() {
			return nil
		}
		if info.Name() == ".git" {
			return filepath.SkipDir
		}
		if !r.fsys.Exists(filepath.Join(path, kfile.FileName)) {
			return nil
		}
		kf, err := r.readKptfile(path)
		if err != nil {
			return err
		}
		subs = append(subs, found{path, kf})
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].abs < subs[j].abs })
	out := make([]*pkgNode, 0, len(subs))
	for _, s := range subs {
		n, err := r.newPkgNode(s.abs, s.kf)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// localResources reads the package's own resources (not its subpackages').
func (r *renderer) localResources(pkg *pkgNode) ([]*yaml.RNode, error) {
	nodes, err := r.readPackage(pkg)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", pkg.rel, err)
	}
	if err := r.checkNodeLimits(pkg, nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}
