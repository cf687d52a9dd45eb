package builtins

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// What the golden cases (testdata/builtin-versions/render-helm-chart) do
// not show of the releases before v0.2.2.

// v010Config names the chart webapp in the default chartHome, in v0.1.0's
// shape.
const v010Config = `apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: v010
helmCharts:
  - name: webapp
    releaseName: r
`

func TestRenderHelmChartV010Failures(t *testing.T) {
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	}
	for _, c := range []struct {
		name, config string
		templates    map[string]string
		items        []*yaml.RNode
		want         string
	}{
		{"no config", "", nil, nil,
			"[error] : failed to configure function: `functionConfig` must be `ConfigMap` or `RenderHelmChart`"},
		{"two resources of one id in the output", v010Config, map[string]string{"a.yaml": cm("same"), "b.yaml": cm("same")}, nil,
			"[error] : failed to run function: failed to run generator: may not add resource with an already registered id: ~G_v1_ConfigMap|~X|same"},
		{"two resources of one id in the package", v010Config, map[string]string{"a.yaml": cm("a")},
			[]*yaml.RNode{yaml.MustParse(cm("dup")), yaml.MustParse(cm("dup") + "  namespace: default\n")},
			"[error] : failed to run function: may not add resource with an already registered id: ~G_v1_ConfigMap|default|dup"},
		{"a List", v010Config, map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMapList\nitems: []\n"}, nil,
			"the chart rendered a ConfigMapList: render-helm-chart v0.1.0 read a kind ending in List as its items"},
		{"a values file URL", strings.Replace(v010Config, "releaseName: r", "valuesFile: http:values.yaml", 1), map[string]string{"a.yaml": cm("a")}, nil,
			`the values file "http:values.yaml" is not a path inside the package`},
	} {
		rl, err := runHelmChartRelease(t, "v0.1.0", c.config, ChartSources{Package: memPackage(defaultHomeChart(c.templates))}, c.items...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
			continue
		}
		if len(rl.Results) != 1 || "[error] : "+rl.Results[0].Message != err.Error() {
			t.Errorf("%s: results %v, want the error as one", c.name, rl.Results)
		}
	}
}

// With valuesInline and valuesMerge replace, v0.1.0 does not read the
// values file, which need not exist.
func TestRenderHelmChartV010ReplaceReadsNoFile(t *testing.T) {
	config := v010Config + "    valuesFile: values/missing.yaml\n    valuesMerge: replace\n    valuesInline:\n      greeting: hi\n"
	pkg := defaultHomeChart(map[string]string{"cm.yaml": testChart["templates/cm.yaml"]})
	rl, err := runHelmChartRelease(t, "v0.1.0", config, ChartSources{Package: memPackage(pkg)})
	if err != nil || len(rl.Items) != 1 || scalarValue(rl.Items[0], "data", "greeting") != "hi" {
		t.Fatalf("got %v, %d items", err, len(rl.Items))
	}
	// v0.2.1 reads it first
	config = `apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: v021
helmCharts:
  - chartArgs:
      name: webapp
    templateOptions:
      values:
        valuesFiles: [values/missing.yaml]
        valuesMerge: replace
        valuesInline:
          greeting: hi
`
	if _, err := runHelmChartRelease(t, "v0.2.1", config, ChartSources{Package: memPackage(pkg)}); err == nil ||
		!strings.Contains(err.Error(), `could not read provided values file "values/missing.yaml"`) {
		t.Errorf("v0.2.1: got %v, want the values file missing", err)
	}
}

func TestCutOnDashes(t *testing.T) {
	objs, err := cutOnDashes("---\n# Source: a.yaml\n# nothing\n---\n# Source: b.yaml\nkind: ConfigMap\n")
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "ConfigMap" {
		t.Errorf("a piece with comments only: %v, %d objects", err, len(objs))
	}
	for in, want := range map[string]string{
		"---\n- a\n":                  "failed to parse \n- a\n: failed to extract objects: unhandled node kind 2",
		"---\nkind: ConfigMap\n-----": "failed to parse --: failed to extract objects: unhandled node kind 8",
	} {
		if _, err := cutOnDashes(in); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}
