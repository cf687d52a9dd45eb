package render

import (
	"fmt"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Tiny stand-ins for catalog functions, for orchestration tests.

func isLocalConfig(n *yaml.RNode) bool {
	return n.GetAnnotations()["config.kubernetes.io/local-config"] == "true"
}

func configData(rl *framework.ResourceList) map[string]string {
	if rl.FunctionConfig == nil {
		return nil
	}
	return rl.FunctionConfig.GetDataMap()
}

var fakeSetNamespace = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	ns := configData(rl)["namespace"]
	n := 0
	for _, it := range rl.Items {
		if isLocalConfig(it) {
			continue
		}
		if err := it.SetNamespace(ns); err != nil {
			return err
		}
		n++
	}
	rl.Results = append(rl.Results, &framework.Result{Message: fmt.Sprintf("namespace set on %d resources", n), Severity: framework.Info})
	return nil
})

var fakeSetLabels = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	for _, it := range rl.Items {
		for k, v := range configData(rl) {
			if err := it.PipeE(yaml.SetLabel(k, v)); err != nil {
				return err
			}
		}
	}
	return nil
})

var fakeSetAnnotations = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	for _, it := range rl.Items {
		for k, v := range configData(rl) {
			if err := it.PipeE(yaml.SetAnnotation(k, v)); err != nil {
				return err
			}
		}
	}
	return nil
})

var fakeSetImage = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	cfg := configData(rl)
	for _, it := range rl.Items {
		cs, err := it.Pipe(yaml.Lookup("spec", "template", "spec", "containers"))
		if err != nil || cs == nil {
			continue
		}
		_ = cs.VisitElements(func(c *yaml.RNode) error {
			img := c.Field("image")
			if img == nil {
				return nil
			}
			name := strings.SplitN(img.Value.YNode().Value, ":", 2)[0]
			if name == cfg["name"] {
				img.Value.YNode().Value = name + ":" + cfg["newTag"]
			}
			return nil
		})
	}
	return nil
})

// recorder records, per function label, the names of the resources it saw.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) fn(label string) framework.ResourceListProcessor {
	return framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		var names []string
		for _, it := range rl.Items {
			names = append(names, it.GetKind()+"/"+it.GetName())
		}
		r.mu.Lock()
		r.seen = append(r.seen, label+": "+strings.Join(names, ","))
		r.mu.Unlock()
		return nil
	})
}

var fakeFail = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	rl.Results = append(rl.Results, &framework.Result{Message: "policy violated", Severity: framework.Error})
	return rl.Results
})

// fakeResolver maps image names (last path element, no tag) or exec lines to
// processors.
func fakeResolver(m map[string]framework.ResourceListProcessor) Resolver {
	return func(fn Function) (framework.ResourceListProcessor, error) {
		key := fn.Exec
		if fn.Image != "" {
			key = fn.Image
			if i := strings.LastIndex(key, "/"); i >= 0 {
				key = key[i+1:]
			}
			if i := strings.Index(key, ":"); i >= 0 {
				key = key[:i]
			}
		}
		if p, ok := m[key]; ok {
			return p, nil
		}
		return nil, &UnsupportedFunctionError{Function: fn, Reason: "not supported", Supported: []string{"fake"}}
	}
}

// benchResolver resolves the four catalog names the benchmark uses to the
// stand-ins (RENDER_BENCH_FAKES=1 measures the engine alone).
func benchResolver() Resolver {
	return fakeResolver(map[string]framework.ResourceListProcessor{
		"set-namespace": fakeSetNamespace, "set-labels": fakeSetLabels,
		"set-annotations": fakeSetAnnotations, "set-image": fakeSetImage,
	})
}

// fakeDropConfigMaps removes every ConfigMap.
var fakeDropConfigMaps = framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
	var keep []*yaml.RNode
	for _, it := range rl.Items {
		if it.GetKind() != "ConfigMap" {
			keep = append(keep, it)
		}
	}
	rl.Items = keep
	return nil
})
