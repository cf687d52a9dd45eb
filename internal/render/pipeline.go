package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// runPipeline runs pkg's pipeline on input (pkg's resources and its
// subpackages', local being pkg's own): mutators, then validators on their
// output, as kpt runs it. A package without a pipeline passes its input on
// (KRM only). A render saving on failure gets back what a failed pipeline
// had (see save_on_failure.go).
func (r *renderer) runPipeline(pkg *pkgNode, input, local []*yaml.RNode) ([]*yaml.RNode, error) {
	pl := pkg.pipeline
	if pl.IsEmpty() {
		if err := areKRM(input); err != nil {
			return nil, &PackageError{Package: pkg.rel, Err: fmt.Errorf("input resource list must contain only KRM resources: %s", err)}
		}
		return input, nil
	}
	// configPath must name a resource of this package
	paths := map[string]bool{}
	for _, n := range local {
		p, _, _ := kioutil.GetFileAnnotations(n)
		paths[filepath.Clean(p)] = true
	}
	for _, group := range []struct {
		name string
		fns  []Function
	}{{"mutators", pl.Mutators}, {"validators", pl.Validators}} {
		for i, fn := range group.fns {
			if fn.ConfigPath != "" && !paths[filepath.Clean(fn.ConfigPath)] {
				return nil, &PackageError{Package: pkg.rel, Err: &ValidateError{File: r.kptfilePath(pkg.abs), Function: fn.DisplayName(),
					Field:  fmt.Sprintf("pipeline.%s[%d].configPath", group.name, i),
					Value:  fn.ConfigPath,
					Reason: r.opts.Kpt.orDefault().configNotInPackage(strings.TrimSuffix(group.name, "s"), fn)}}
			}
		}
	}
	out, err := r.runMutators(pkg, input)
	if err != nil {
		return out, err
	}
	if err := r.runValidators(pkg, out); err != nil {
		if r.saveOnFailure {
			return out, err // a validator changes nothing: the mutators' output stands
		}
		return nil, err
	}
	return out, nil
}

func (r *renderer) runMutators(pkg *pkgNode, input []*yaml.RNode) ([]*yaml.RNode, error) {
	fns := pkg.pipeline.Mutators
	if len(fns) == 0 {
		return input, nil
	}
	// like kpt, make every runner before running any
	runs := make([]*fnRun, len(fns))
	for i := range fns {
		run, err := r.prepare(pkg, fns[i], Mutator, i >= pkg.guardMutFrom)
		if err != nil {
			return nil, err
		}
		runs[i] = run
	}
	for i, run := range runs {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		if run.skip != "" {
			run.recordSkip()
			continue
		}
		if run.unrunnable != nil {
			return r.failedInput(input), run.fail(time.Now(), run.unrunnable)
		}
		fn := fns[i]
		if fn.ConfigPath != "" {
			// the config is the package's resource, as mutated so far
			for _, n := range input {
				p, _ := fileAnnotations(n)
				if pp, _ := annotation(annotationsOf(n), pkgPathAnnotation); pp == pkg.abs && p == fn.ConfigPath {
					run.config = n
				}
			}
		}
		selective := len(fn.Selectors) > 0 || len(fn.Exclude) > 0
		if selective {
			if err := setResourceIDs(input); err != nil {
				return nil, err
			}
		}
		selected := selectInput(input, fn.Selectors, fn.Exclude)
		out, err := pipeline(selected, run)
		if err != nil {
			return r.failedInput(input), err
		}
		if selective {
			input = mergeWithInput(out, selected, input)
			if err := deleteResourceIDs(input); err != nil {
				return nil, err
			}
		} else {
			input = out
		}
	}
	return input, nil
}

// pipeline is what kpt gets from kio.Pipeline with one filter between two
// package buffers: the internal annotations reconciled around the filter,
// and nothing at all when the filter leaves no resource.
func pipeline(input []*yaml.RNode, f kio.Filter) ([]*yaml.RNode, error) {
	snap, err := preprocess(input)
	if err != nil {
		return nil, err
	}
	out, err := f.Filter(input)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	if err := reconcile(out, snap); err != nil {
		return nil, err
	}
	return out, nil
}

func (r *renderer) runValidators(pkg *pkgNode, input []*yaml.RNode) error {
	for i, fn := range pkg.pipeline.Validators {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		selected := selectInput(input, fn.Selectors, fn.Exclude)
		run, err := r.prepare(pkg, fn, Validator, i >= pkg.guardValFrom)
		if err != nil {
			return err
		}
		if run.skip != "" {
			run.recordSkip()
			continue
		}
		if run.unrunnable != nil {
			return run.fail(time.Now(), run.unrunnable)
		}
		clones := make([]*yaml.RNode, len(selected))
		for j, n := range selected {
			clones[j] = n.Copy()
		}
		if _, err := run.Filter(clones); err != nil {
			return err
		}
	}
	return nil
}
