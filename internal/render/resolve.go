package render

import (
	"github.com/porchbot/porchbot/internal/render/builtins"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// DefaultResolver runs image functions with porchbot's built-ins and exec
// functions, which reach it only when the exec policy allowed them, as
// subprocesses. An image is tied to the catalog release its tag (or the
// Kptfile's `tag` constraint) names, as kpt resolves it, and runs with the
// behaviour of that release; an image that is not one of the catalog
// functions porchbot builds in, or whose tag or digest names no release
// porchbot reproduces, fails with a message saying what porchbot can run.
func DefaultResolver(fn Function) (framework.ResourceListProcessor, error) {
	if fn.Exec != "" {
		return NewExecFunction(fn.Exec)
	}
	r, err := builtins.Resolve(fn.Image, fn.Tag)
	if err != nil {
		return nil, &UnsupportedFunctionError{Function: fn, Reason: err.Error()}
	}
	return r.New(), nil
}

// SupportedFunctions lists the built-in function names.
func SupportedFunctions() []string { return builtins.Names() }
