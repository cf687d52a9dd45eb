package builtins

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// apply-replacements (catalog v0.1): kustomize's replacements (sources,
// targets with select/reject, fieldPaths, options delimiter/index/create)
// over all resources, local-config ones included. The config must be an
// ApplyReplacements (fn.kpt.dev/v1alpha1) with `replacements:`. No results
// on success; the error as an error result otherwise.

const applyReplacementsKind = "ApplyReplacements"

func applyReplacements(rl *framework.ResourceList) error {
	fc := rl.FunctionConfig
	fail := func(err error) error {
		rl.Results = append(rl.Results, errorResult(err))
		return errFunctionFailure
	}
	if isEmptyConfig(fc) {
		return fail(fmt.Errorf("FunctionConfig is missing. Expect `ApplyReplacements`"))
	}
	replacements, err := replacementsOf(fc)
	if err != nil {
		return fail(err)
	}
	items, err := replacement.Filter{Replacements: replacements}.Filter(rl.Items)
	if err != nil {
		return fail(err)
	}
	rl.Items = items
	return nil
}

// replacementsOf reads an ApplyReplacements function config, as every
// release does.
func replacementsOf(fc *yaml.RNode) ([]types.Replacement, error) {
	kind, apiVersion := getString(fc, yaml.KindField), getString(fc, yaml.APIVersionField)
	if kind != applyReplacementsKind || apiVersion != fnConfigAPIVersion {
		return nil, fmt.Errorf("received functionConfig of kind %s and apiVersion %s, "+
			"only functionConfig of kind %s and apiVersion %s is supported",
			kind, apiVersion, applyReplacementsKind, fnConfigAPIVersion)
	}
	var cfg struct {
		Replacements []types.Replacement `yaml:"replacements,omitempty"`
	}
	if err := fc.YNode().Decode(&cfg); err != nil {
		return nil, fmt.Errorf("unable to convert functionConfig to %s:\n%w", "replacements", err)
	}
	return cfg.Replacements, nil
}
