package builtins

import (
	"fmt"
	"path"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// render-helm-chart's functionConfig: a RenderHelmChart (helmGlobals and a
// list of helmCharts) or a ConfigMap whose data names one chart. Field
// names are the catalog's (kustomize's HelmChartInflationGenerator).

const (
	renderHelmChartKind = "RenderHelmChart"
	configMapKind       = "ConfigMap"
	helmDefaultHome     = "tmp/charts"
	helmMergeOverride   = "override"
	helmMergeMerge      = "merge"
	helmMergeReplace    = "replace"
)

// helmChart is one chart to render, with the config's globals.
type helmChart struct {
	helmGlobals
	helmChartArgs
	helmTemplateOptions
}

type helmGlobals struct {
	ChartHome  string `yaml:"chartHome,omitempty"`
	ConfigHome string `yaml:"configHome,omitempty"`
}

type helmChartArgs struct {
	Name     string                   `yaml:"name,omitempty"`
	Version  string                   `yaml:"version,omitempty"`
	Repo     string                   `yaml:"repo,omitempty"`
	Registry string                   `yaml:"registry,omitempty"`
	Auth     *yaml.ResourceIdentifier `yaml:"auth,omitempty"`
}

type helmTemplateOptions struct {
	APIVersions  []string      `yaml:"apiVersions,omitempty"`
	ReleaseName  string        `yaml:"releaseName,omitempty"`
	Namespace    string        `yaml:"namespace,omitempty"`
	Description  string        `yaml:"description,omitempty"`
	NameTemplate string        `yaml:"nameTemplate,omitempty"`
	IncludeCRDs  bool          `yaml:"includeCRDs,omitempty"`
	SkipTests    bool          `yaml:"skipTests,omitempty"`
	Values       helmValueArgs `yaml:"values,omitempty"`
}

type helmValueArgs struct {
	ValuesFiles  []string       `yaml:"valuesFiles,omitempty"`
	ValuesInline map[string]any `yaml:"valuesInline,omitempty"`
	ValuesMerge  string         `yaml:"valuesMerge,omitempty"`
}

// renderHelmChartConfig is the RenderHelmChart kind's shape.
type renderHelmChartConfig struct {
	HelmGlobals helmGlobals `yaml:"helmGlobals,omitempty"`
	HelmCharts  []struct {
		ChartArgs       helmChartArgs       `yaml:"chartArgs,omitempty"`
		TemplateOptions helmTemplateOptions `yaml:"templateOptions,omitempty"`
	} `yaml:"helmCharts,omitempty"`
}

// helmChartsOf reads the config into the charts it names, each with the
// release's defaults (chartHome tmp/charts, the chart's values.yaml as the
// values file, valuesMerge override). v010: v0.1.0's shape (renderHelmChartConfigV010,
// a ConfigMap without nameTemplate and skipTests) and a chart must be
// named. The error is the release's wording.
func helmChartsOf(fc *yaml.RNode, v010 bool) ([]*helmChart, error) {
	var charts []*helmChart
	switch getString(fc, yaml.KindField) {
	case renderHelmChartKind:
		var err error
		if v010 {
			charts, err = helmChartsV010(fc)
		} else {
			charts, err = helmChartsV020(fc)
		}
		if err != nil {
			return nil, err
		}
	case configMapKind:
		charts = append(charts, configMapChart(fc, v010))
	default:
		return nil, fmt.Errorf("`functionConfig` must be `%s` or `%s`", configMapKind, renderHelmChartKind)
	}
	for _, c := range charts {
		if v010 && c.Name == "" {
			return nil, fmt.Errorf("chart name cannot be empty")
		}
		if err := c.defaults(); err != nil {
			return nil, err
		}
	}
	return charts, nil
}

func helmChartsV020(fc *yaml.RNode) ([]*helmChart, error) {
	var cfg renderHelmChartConfig
	if err := fc.YNode().Decode(&cfg); err != nil {
		return nil, err
	}
	var charts []*helmChart
	for _, c := range cfg.HelmCharts {
		charts = append(charts, &helmChart{cfg.HelmGlobals, c.ChartArgs, c.TemplateOptions})
	}
	return charts, nil
}

// configMapChart reads the one chart a ConfigMap names (v0.1.0: no
// nameTemplate, no skipTests).
func configMapChart(fc *yaml.RNode, v010 bool) *helmChart {
	data := func(key string) string { return scalarValue(fc, "data", key) }
	c := &helmChart{
		helmGlobals:   helmGlobals{ChartHome: data("chartHome"), ConfigHome: data("configHome")},
		helmChartArgs: helmChartArgs{Name: data("name"), Version: data("version"), Repo: data("repo")},
		helmTemplateOptions: helmTemplateOptions{ReleaseName: data("releaseName"), Namespace: data("namespace"),
			IncludeCRDs: data("includeCRDs") == "true"},
	}
	if !v010 {
		c.NameTemplate, c.SkipTests = data("nameTemplate"), data("skipTests") == "true"
	}
	if f := data("valuesFile"); f != "" {
		c.Values.ValuesFiles = []string{f}
	}
	return c
}

func (c *helmChart) defaults() error {
	if c.ChartHome == "" {
		c.ChartHome = helmDefaultHome
	}
	if len(c.Values.ValuesFiles) == 0 {
		c.Values.ValuesFiles = []string{path.Join(c.ChartHome, c.Name, "values.yaml")}
	}
	switch c.Values.ValuesMerge {
	case "":
		c.Values.ValuesMerge = helmMergeOverride
	case helmMergeOverride, helmMergeMerge, helmMergeReplace:
	default:
		return fmt.Errorf("valuesMerge must be one of %v", []string{helmMergeMerge, helmMergeOverride, helmMergeReplace})
	}
	return nil
}
