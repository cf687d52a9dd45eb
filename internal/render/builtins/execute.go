package builtins

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Execute runs f on the ResourceList rw reads and writes the result to rw,
// as the release's own framework does: framework.Execute, or for a release
// on kyaml v0.10–v0.11's framework (see Unreconciled) ExecuteUnreconciled.
func Execute(f Function, rw *kio.ByteReadWriter) error {
	if u, ok := f.(Unreconciled); ok && u.Unreconciled() {
		return ExecuteUnreconciled(f, rw)
	}
	return framework.Execute(f, rw)
}

// ExecuteUnreconciled is framework.Execute as kyaml v0.10–v0.11's framework
// ran a function (see Unreconciled): the items are written back with the
// annotations the function left them, no internal annotation reconciled
// with a legacy one it changed.
func ExecuteUnreconciled(p framework.ResourceListProcessor, rw *kio.ByteReadWriter) error {
	items, err := rw.Read()
	if err != nil {
		return fmt.Errorf("failed to read ResourceList input: %w", err)
	}
	rl := framework.ResourceList{Items: items, FunctionConfig: rw.FunctionConfig}
	procErr := p.Process(&rl)
	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return fmt.Errorf("failed to write the results: %w", err)
		}
		if rw.Results, err = yaml.Parse(string(b)); err != nil {
			return fmt.Errorf("failed to write the results: %w", err)
		}
	}
	if err := rw.Write(rl.Items); err != nil {
		return err
	}
	return procErr
}
