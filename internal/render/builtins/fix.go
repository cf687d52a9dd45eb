package builtins

import (
	"errors"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fix (catalog v0.2.0–v0.2.1, kyaml v0.10's function framework) migrates
// kpt v0.x packages to kpt 1.0. Items are grouped into packages by the
// files named Kptfile among their paths (a file belongs to the nearest
// directory above it holding one). Then, in item order:
//
//   - every item of kind Kptfile is migrated (fix_kptfile.go): a v1alpha1
//     (or any other non-v1) Kptfile is written anew as v1, its openAPI
//     setters becoming an apply-setters mutator with a setters ConfigMap
//     (fix_setters.go), and its package's function configs (items naming
//     a function in an annotation or metadata.configFn) becoming mutators;
//     a v1alpha2 one gets apiVersion v1 and its apply-setters configMap
//     moved to a file; a v1 one is left as it is. Whatever its version, its
//     package's function configs lose their function annotations and move
//     to the package's top directory (fix_fnconfig.go);
//   - an item labelled cli-utils.sigs.k8s.io/inventory-id is only reported;
//   - any other item has its kpt v0.x setter comments rewritten as
//     `# kpt-set:` comments (fix_comments.go), by the openAPI of the last
//     item of kind Kptfile in its package's directory.
//
// One result per change, none with a severity; a failure replaces them
// with one error result.
//
// In a kpt 1.0 render the root Kptfile is v1 (kpt refuses an older one, in
// the root or a subpackage, before any function runs), so there fix moves
// function configs, rewrites the setter comments of sequences, which need
// no openAPI, and migrates resources of kind Kptfile kept in other files.
type fixRelease struct {
	// v021: the setters file is setters.yaml (v0.2.0: setters-config.yaml)
	// and its values are formatted, a function config moves to a file named
	// after it (v0.2.0: keeps its file's name), and a sequence's
	// `{"$ref": ...}` comment is rewritten too
	v021 bool
}

// errFixNotReproduced marks an input porchbot refuses rather than guess at
// what the release does with it.
var errFixNotReproduced = errors.New("porchbot does not reproduce what fix does here")

// fixRefusal is a refusal: why, and what the release does instead.
func fixRefusal(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errFixNotReproduced}, args...)...)
}

// fixRun is one run of the release over a ResourceList's items.
type fixRun struct {
	release fixRelease
	items   []*yaml.RNode
	pkgs    fixPackages
	results framework.Results
	// setters are the setters ConfigMaps made, added after the items
	setters []*yaml.RNode
}

func (f fixRelease) process(rl *framework.ResourceList) error {
	r := &fixRun{release: f, items: rl.Items}
	items, err := r.run()
	rl.Items = items
	switch {
	case errors.Is(err, errFixNotReproduced):
		rl.Results = append(rl.Results, errorResult(err))
		return err
	case err != nil:
		rl.Results = append(rl.Results, result("failed to fix package: "+err.Error(), framework.Error))
		// the release's framework prints the error, then its main again
		// with a newline
		return Failure{err.Error() + err.Error() + "\n"}
	}
	rl.Results = append(rl.Results, r.results...)
	return nil
}

// run migrates the items; on failure it returns the items as the release
// leaves them (nil when a resource's comments failed).
func (r *fixRun) run() ([]*yaml.RNode, error) {
	if err := r.checkPaths(); err != nil {
		return r.items, err
	}
	pkgs, err := groupFixPackages(r.items)
	if err != nil {
		return r.items, fmt.Errorf("unable to group resources by packages, %q", err.Error())
	}
	r.pkgs = pkgs
	schemas, err := r.packageSchemas()
	if err != nil {
		return r.items, err
	}
	sawKptfile := false
	for i, it := range r.items {
		// every item has its meta: grouping read it
		meta, _ := it.GetMeta()
		path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release's kyaml named this one
		switch {
		case meta.Kind == "Kptfile":
			sawKptfile = true
			pkg := filepath.Dir(path)
			fns, err := r.moveFunctionConfigs(pkg)
			if err != nil {
				return r.items, err
			}
			kf, err := r.migrateKptfile(it, meta, fns)
			if err != nil {
				return r.items, err
			}
			r.items[i] = kf
		case meta.Labels["cli-utils.sigs.k8s.io/inventory-id"] != "":
			r.report(path, `Please refer to https://googlecontainertools.github.io/kpt/reference/live/alpha/, `+
				`this package is using "inventory-object"`)
		default:
			w := fixWalk{v021: r.release.v021, defs: schemas[r.pkgs.pkgOf[path]]}
			if err := w.resource(it); err != nil {
				return nil, err
			}
		}
	}
	if !sawKptfile {
		return r.items, errors.New("Kptfile not found in directory tree, make sure you specify '--include-meta-resources' flag") //nolint:staticcheck // the release's words
	}
	return append(r.items, r.setters...), nil
}

// checkPaths refuses an item whose path is absolute: the release looks for
// its package up to the root directory and never stops.
func (r *fixRun) checkPaths() error {
	for _, it := range r.items {
		if p := fixPath(it); filepath.IsAbs(p) {
			return fixRefusal("the path %q is absolute, and the release, looking for its package, never returns", p)
		}
	}
	return nil
}

func (r *fixRun) report(path, msg string) {
	res := &framework.Result{Message: msg}
	if path != "" {
		res.File = &framework.File{Path: path}
	}
	r.results = append(r.results, res)
}
