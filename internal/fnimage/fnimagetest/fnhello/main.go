// fnhello is the KRM function the function image tests put in an image:
// it annotates every resource with hello: <functionConfig data.greeting>
// and reports one result, or fails when the greeting is "fail".
package main

import (
	"errors"
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func main() {
	err := framework.Execute(framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		greeting := rl.FunctionConfig.GetDataMap()["greeting"]
		if greeting == "fail" {
			return errors.New("told to fail")
		}
		for _, it := range rl.Items {
			if err := it.PipeE(yaml.SetAnnotation("hello", greeting)); err != nil {
				return err
			}
		}
		rl.Results = append(rl.Results, &framework.Result{Message: "greeted", Severity: framework.Info})
		return nil
	}), &kio.ByteReadWriter{Reader: os.Stdin, Writer: os.Stdout, KeepReaderAnnotations: true})
	if err != nil {
		os.Exit(1)
	}
}
