package render

import (
	kfile "github.com/porchbot/porchbot/internal/kptfile"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kpt v1.0.0-beta.67 reads two annotations of the root Kptfile before it
// renders (ReadsRenderAnnotations):
//
//   - kpt.dev/save-on-render-failure: "true" writes what a failed render
//     had rendered up to the failure (without deleting any file), and the
//     render still fails. What is written is kpt's: the resources the
//     root package had gathered when the failure reached it. A function
//     that failed leaves its input as it was before it ran; a validator
//     that failed leaves its package's mutated resources; a package whose
//     subpackage failed gathers its own resources, the subpackages
//     rendered before, and what the failed one returned. Only the root's
//     gathering is written: a failure two packages deep returns nothing to
//     the root, which then writes nothing but its Kptfile's status (as
//     kpt).
//   - kpt.dev/bfs-rendering: "true" renders top-down (bfs.go).

// readRenderAnnotations sets the render's mode from the root Kptfile, for
// a release that reads them. Saving on failure runs every function on
// copies: a built-in that fails in place could leave its input half
// changed, and that input is what is saved.
func (r *renderer) readRenderAnnotations(root *pkgNode) {
	if !r.opts.Kpt.orDefault().ReadsRenderAnnotations() {
		return
	}
	r.saveOnFailure = root.kf.AnnotationTrue(kfile.SaveOnRenderFailureAnnotation)
	r.breadthFirst = root.kf.AnnotationTrue(kfile.BFSRenderingAnnotation)
	if r.saveOnFailure {
		r.copying = true
	}
}

// keepPartial records nodes as what package p had gathered when the render
// failed: the root's is what a render saving on failure writes.
func (r *renderer) keepPartial(p *pkgNode, nodes []*yaml.RNode) {
	if p == r.rootPkg {
		r.partial = nodes
	}
}

// failedInput is a mutator's input after the function failed, as kpt
// leaves it for saving: the annotations the run put on it (resource ids,
// the selectors' ids, the annotation migration's) taken off again.
func (r *renderer) failedInput(input []*yaml.RNode) []*yaml.RNode {
	if !r.saveOnFailure {
		return nil
	}
	for _, n := range input {
		for _, key := range []string{
			kioutil.LegacyIdAnnotation, //nolint:staticcheck
			migrationKey,
			kioutil.IdAnnotation,
			resourceIDAnnotation,
		} {
			clearAnnotation(n, key)
		}
	}
	return input
}
