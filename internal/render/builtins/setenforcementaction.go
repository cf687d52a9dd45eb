package builtins

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-enforcement-action (catalog v0.1.0): sets spec.enforcementAction of
// every constraints.gatekeeper.sh/v1beta1 resource to the ConfigMap's one
// value (deny, warn or dryrun). The release looks spec up creating it as a
// scalar, so a constraint without spec fails the function; its results
// count the policies and name each with its file, or warn that there was
// none.
func setEnforcementAction(rl *framework.ResourceList) error {
	fail := func(err error) error {
		rl.Results = append(rl.Results, &framework.Result{Message: "failed to process policies: " + err.Error(),
			Severity: framework.Error})
		return Failure{err.Error()}
	}
	data := rl.FunctionConfig.GetDataMap()
	if len(data) != 1 {
		return fail(errors.New("expecting exactly 1 enforcementAction as part of the ConfigMap"))
	}
	action := data["enforcementAction"]
	if action != "deny" && action != "warn" && action != "dryrun" {
		return fail(errors.New("expected values for enforcementAction are [deny] or [warn] or [dryrun]"))
	}
	var named framework.Results
	for _, it := range rl.Items {
		if it.IsNilOrEmpty() {
			continue
		}
		meta, err := it.GetMeta()
		if err != nil {
			return fail(err)
		}
		if meta.Name == "" || meta.Kind == "" || meta.APIVersion != "constraints.gatekeeper.sh/v1beta1" {
			continue
		}
		if err := setSpecField(it, "enforcementAction", action); err != nil {
			return fail(err)
		}
		path := it.GetAnnotations()[kioutil.PathAnnotation]
		if path == "" {
			path = it.GetAnnotations()[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release read both
		}
		r := &framework.Result{Message: fmt.Sprintf("Policy name: [%s]", it.GetName()), Severity: framework.Info}
		if path != "" {
			r.File = &framework.File{Path: path}
		}
		named = append(named, r)
	}
	if len(named) == 0 {
		rl.Results = append(rl.Results, &framework.Result{Message: fmt.Sprintf("Found no policy to set to [%s]", action),
			Severity: framework.Warning})
		return nil
	}
	rl.Results = append(rl.Results, &framework.Result{Severity: framework.Info,
		Message: fmt.Sprintf("Number of policies set to [%s]: %d", action, len(named))})
	rl.Results = append(rl.Results, named...)
	return nil
}

// setSpecField sets spec.<field> as the release's kyaml (v0.12) did: spec
// looked up or made as a scalar, which a field cannot be set in; the error
// in that kyaml's words.
func setSpecField(it *yaml.RNode, field, value string) error {
	existed := it.Field("spec") != nil
	spec, err := it.Pipe(yaml.LookupCreate(yaml.ScalarNode, "spec"))
	if err != nil {
		return err
	}
	if k := spec.YNode().Kind; k != yaml.MappingNode && !yaml.IsMissingOrNull(spec) {
		text := ""
		if existed {
			s, _ := spec.String()
			text = strings.TrimSpace(s)
		}
		return fmt.Errorf("wrong Node Kind for spec expected: MappingNode was %s: value: {%s}", nodeKindName(k), text)
	}
	return spec.PipeE(yaml.SetField(field, yaml.NewScalarRNode(value)))
}

// nodeKindName is kyaml's name of a node kind.
func nodeKindName(k yaml.Kind) string {
	switch k {
	case yaml.DocumentNode:
		return "DocumentNode"
	case yaml.SequenceNode:
		return "SequenceNode"
	case yaml.MappingNode:
		return "MappingNode"
	case yaml.AliasNode:
		return "AliasNode"
	}
	return "ScalarNode"
}
