package builtins

import (
	"bytes"
	"fmt"
	"path"

	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// render-helm-chart (catalog v0.1.0–v0.3.0): renders Helm charts as `helm
// template` does and appends the resources to the package, but for those
// the package already has, which it leaves as they are: a second render
// adds nothing. v0.2.0 on are built on the kpt functions SDK of May 2022
// (the same apiVersion, kind, name and namespace is the same resource);
// v0.1.0 on kyaml's function framework and kustomize's resource map
// (renderhelmchart_v010.go).
//
// The release runs the helm binary it bundles; porchbot runs Helm's
// library in process, client-only (templates only: no cluster, no hooks
// run), with the Kubernetes version that binary reports. A chart is a
// directory {chartHome}/{name} of the package (chartHome is relative to the
// package; the release's default tmp/charts), or, where the package has no
// such directory, a chart fetched from a repository the server allows
// (ChartSources). The release would pull a missing chart from anywhere a
// package names and read values files from any URL; porchbot refuses both.
// An error fails the function with the error on stderr and no result
// (v0.1.0: an error result).
type renderHelmChart struct {
	src ChartSources
	rel helmChartRelease
}

// helmChartRelease is what differs between render-helm-chart's releases.
type helmChartRelease struct {
	// kube is the Kubernetes version the release's helm binary reports
	kube string
	// v010: v0.1.0's configuration, values and output (renderhelmchart_v010.go)
	v010 bool
	// cutsOnDashes: v0.2.0–v0.2.1 cut helm's output at every "---"
	// (renderhelmchart_dashes.go)
	cutsOnDashes bool
	// schemeOnly: v0.2.0 said only "unsupported URL scheme" of a values
	// file it could not read (renderhelmchart_valuesfile.go)
	schemeOnly bool
}

// helmChartFunction is render-helm-chart as a built-in: it runs as kpt
// runs a function and hears where charts are.
type helmChartFunction struct {
	*kptFunction
	h *renderHelmChart
}

// UseCharts implements ChartUser.
func (f *helmChartFunction) UseCharts(s ChartSources) { f.h.src = s }

func renderHelmChartRelease(rel helmChartRelease, versions ...string) []release {
	out := make([]release, 0, len(versions))
	for _, v := range versions {
		out = append(out, release{version: v, new: func() Function {
			h := &renderHelmChart{rel: rel}
			// v0.1.0 ran on kyaml's function framework of 2021 (Unreconciled)
			return &helmChartFunction{kptFunction: &kptFunction{fn: h.process, unreconciled: rel.v010}, h: h}
		}})
	}
	return out
}

func (h *renderHelmChart) process(rl *framework.ResourceList) error {
	if h.rel.v010 {
		return h.processV010(rl)
	}
	// the SDK prints the error and reports no result
	fail := func(err error) error { return Failure{"failed to evaluate function: " + err.Error()} }
	charts, err := h.configure(rl.FunctionConfig)
	if err != nil {
		return fail(err)
	}
	for _, c := range charts {
		objs, err := h.render(c, rl.Items)
		if err != nil {
			return fail(fmt.Errorf("failed to run function: %w", err))
		}
		for _, o := range objs {
			if !hasSameObject(rl.Items, o) {
				rl.Items = append(rl.Items, o)
			}
		}
	}
	return nil
}

// configure reads the functionConfig into the charts it names.
func (h *renderHelmChart) configure(fc *yaml.RNode) ([]*helmChart, error) {
	if isEmptyConfig(fc) {
		return nil, fmt.Errorf("failed to configure function: `functionConfig` must be `%s` or `%s`", configMapKind, renderHelmChartKind)
	}
	charts, err := helmChartsOf(fc, h.rel.v010)
	if err != nil {
		return nil, fmt.Errorf("failed to configure function: %w", err)
	}
	return charts, nil
}

// maxHelmOutput bounds what one chart may render to.
const maxHelmOutput = 16 << 20

// render renders one chart into its resources, read from helm's output as
// the release reads it.
func (h *renderHelmChart) render(c *helmChart, items []*yaml.RNode) ([]*yaml.RNode, error) {
	if c.Auth != nil {
		if err := helmAuthSecret(c.Auth, items); err != nil {
			return nil, err
		}
	}
	objs, err := h.generate(c)
	if err != nil {
		return nil, fmt.Errorf("failed to run generator: %w", err)
	}
	return objs, nil
}

// generate is the release's generator: the chart, its values, helm
// template and the resources read from its output.
func (h *renderHelmChart) generate(c *helmChart) ([]*yaml.RNode, error) {
	ch, err := h.chart(c)
	if err != nil {
		return nil, err
	}
	vals, err := h.values(c, ch.values)
	if err != nil {
		return nil, err
	}
	out, err := h.template(&helmJob{Files: ch.files, Values: vals, Chart: *c, Kube: h.rel.kube})
	if err != nil {
		return nil, err
	}
	if len(out) > maxHelmOutput {
		return nil, fmt.Errorf("the chart %s rendered more than %d bytes", c.Name, maxHelmOutput)
	}
	switch {
	case h.rel.v010:
		return resmapOfHelmOutput(out)
	case h.rel.cutsOnDashes:
		return cutOnDashes(out)
	}
	return readHelmOutput(out, false)
}

// readHelmOutput reads helm's output document by document, as kyaml's
// reader does (a lone List's items are the resources, unless keepLists).
func readHelmOutput(out string, keepLists bool) ([]*yaml.RNode, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewBufferString(out), OmitReaderAnnotations: true, DisableUnwrapping: keepLists}).Read()
	if err != nil {
		return nil, err
	}
	objs := make([]*yaml.RNode, 0, len(nodes))
	for _, n := range nodes {
		if n.YNode().Kind != yaml.MappingNode || len(n.YNode().Content) == 0 {
			continue // helm's output between resources, which the release skips
		}
		objs = append(objs, n)
	}
	return objs, nil
}

// hasSameObject reports whether items hold an object of o's apiVersion,
// kind, name and namespace.
func hasSameObject(items []*yaml.RNode, o *yaml.RNode) bool {
	for _, it := range items {
		if getString(it, yaml.APIVersionField) == getString(o, yaml.APIVersionField) &&
			getString(it, yaml.KindField) == getString(o, yaml.KindField) &&
			it.GetName() == o.GetName() && it.GetNamespace() == o.GetNamespace() {
			return true
		}
	}
	return false
}

// helmAuthSecret checks the Secret auth names is among the items with a
// username and a password, as the release does before it pulls.
func helmAuthSecret(auth *yaml.ResourceIdentifier, items []*yaml.RNode) error {
	if auth.Kind != "Secret" {
		return fmt.Errorf("auth `kind` must be `Secret`")
	}
	ns := auth.Namespace
	if ns == "" {
		ns = "default"
	}
	var secret *yaml.RNode
	for _, it := range items {
		ins := it.GetNamespace()
		if ins == "" {
			ins = "default"
		}
		if it.GetKind() == "Secret" && it.GetName() == auth.Name && ins == ns {
			secret = it
		}
	}
	if secret == nil {
		return fmt.Errorf("could not find Secret %q identified by auth", fmt.Sprint(auth))
	}
	for _, k := range []string{"username", "password"} {
		if scalarValue(secret, "data", k) == "" {
			return fmt.Errorf("could not find %s in Secret %s", k, auth.Name)
		}
	}
	return nil
}

// aChart is a chart's files and how its values files are read.
type aChart struct {
	files  []*loader.BufferedFile
	values func(string) ([]byte, error)
}

// chart finds the chart: the package's directory {chartHome}/{name}, else
// a chart from an allowed repository.
func (h *renderHelmChart) chart(c *helmChart) (*aChart, error) {
	home, err := packageRel(c.ChartHome, "chartHome")
	if err != nil {
		return nil, err
	}
	dir := path.Join(home, c.Name)
	files, ok, err := loadPackageChart(h.src.Package, dir)
	if err != nil {
		return nil, err
	}
	fromPackage := h.packageValuesFile
	if ok {
		return &aChart{files: files, values: fromPackage}, nil
	}
	if c.Repo == "" {
		return nil, fmt.Errorf("the chart %q is not a directory of the package (%s) and no repo is given", c.Name, dir)
	}
	files, err = h.src.Repos.fetch(c.Repo, c.Name, c.Version)
	if err != nil {
		return nil, err
	}
	// the release pulls the chart into {chartHome}/{name}: its default
	// values file is the chart's values.yaml
	chartValues := path.Join(dir, "values.yaml")
	return &aChart{files: files, values: func(f string) ([]byte, error) {
		if rel, err := packageRel(f, "values file"); err == nil && rel == chartValues {
			for _, cf := range files {
				if cf.Name == "values.yaml" {
					return cf.Data, nil
				}
			}
		}
		return fromPackage(f)
	}}, nil
}
