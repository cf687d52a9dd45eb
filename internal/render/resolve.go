package render

import (
	"github.com/porchbot/porchbot/internal/render/builtins"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// DefaultResolver runs image functions with porchbot's built-ins (matched by
// image name whatever the registry and tag) and exec functions, which reach
// it only when the exec policy allowed them, as subprocesses.
func DefaultResolver(fn Function) (framework.ResourceListProcessor, error) {
	if fn.Exec != "" {
		return NewExecFunction(fn.Exec)
	}
	spec, ok := builtins.Lookup(fn.Image)
	if !ok {
		return nil, &UnsupportedFunctionError{Function: fn,
			Reason: "not supported: porchbot runs functions in process and has no built-in named " +
				builtins.ImageName(fn.Image), Supported: SupportedFunctions()}
	}
	return spec.New(), nil
}

// SupportedFunctions lists the built-in function names.
func SupportedFunctions() []string { return builtins.Names() }
