package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// render-helm-chart v0.1.0 (kyaml's function framework of 2021, kustomize
// api v0.8's resource map, Helm v3.6.3) differs from v0.2.0 on in:
//
//   - its RenderHelmChart: each of helmCharts is flat (name, version, repo,
//     releaseName, namespace, valuesFile, valuesInline, valuesMerge,
//     includeCRDs; nothing else is read), and a chart must be named;
//   - its values: one values file; with valuesInline, merged as later
//     releases merge (replace: the inline values, the file unread);
//     without, the file as it is, or, where there is no such file, none;
//   - its output: the package's resources and each chart's in a
//     kustomize resource map, which refuses two resources of one id
//     (kind, apiVersion, name and namespace, "" and default the same
//     namespace); a chart's resource with exactly the id of a package's
//     resource is left out;
//   - its failure: an error result, printed as the framework prints it.

// helmChartV010 is one of v0.1.0's helmCharts.
type helmChartV010 struct {
	Name         string         `yaml:"name,omitempty"`
	Version      string         `yaml:"version,omitempty"`
	Repo         string         `yaml:"repo,omitempty"`
	ReleaseName  string         `yaml:"releaseName,omitempty"`
	Namespace    string         `yaml:"namespace,omitempty"`
	ValuesFile   string         `yaml:"valuesFile,omitempty"`
	ValuesInline map[string]any `yaml:"valuesInline,omitempty"`
	ValuesMerge  string         `yaml:"valuesMerge,omitempty"`
	IncludeCRDs  bool           `yaml:"includeCRDs,omitempty"`
}

func helmChartsV010(fc *yaml.RNode) ([]*helmChart, error) {
	var cfg struct {
		HelmGlobals helmGlobals     `yaml:"helmGlobals,omitempty"`
		HelmCharts  []helmChartV010 `yaml:"helmCharts,omitempty"`
	}
	if err := fc.YNode().Decode(&cfg); err != nil {
		return nil, err
	}
	charts := make([]*helmChart, 0, len(cfg.HelmCharts))
	for _, v := range cfg.HelmCharts {
		c := &helmChart{helmGlobals: cfg.HelmGlobals,
			helmChartArgs: helmChartArgs{Name: v.Name, Version: v.Version, Repo: v.Repo},
			helmTemplateOptions: helmTemplateOptions{ReleaseName: v.ReleaseName, Namespace: v.Namespace, IncludeCRDs: v.IncludeCRDs,
				Values: helmValueArgs{ValuesInline: v.ValuesInline, ValuesMerge: v.ValuesMerge}}}
		if v.ValuesFile != "" {
			c.Values.ValuesFiles = []string{v.ValuesFile}
		}
		charts = append(charts, c)
	}
	return charts, nil
}

// helmValuesV010 is v0.1.0's one values file for Helm.
func (c *helmChart) helmValuesV010(read func(string) ([]byte, error)) ([][]byte, error) {
	if len(c.Values.ValuesInline) > 0 {
		if c.Values.ValuesMerge == helmMergeReplace {
			y, err := sigsyaml.Marshal(c.Values.ValuesInline)
			return [][]byte{y}, err
		}
		return c.helmValues(read)
	}
	f := c.Values.ValuesFiles[0]
	b, err := read(f)
	if isNotExist(err) {
		if valuesFileURL(f) {
			return nil, errNotInPackage("values file", f)
		}
		return [][]byte{nil}, nil
	}
	return [][]byte{b}, err
}

// processV010 runs v0.1.0: a failure is an error result, and the
// framework prints it; a failure past the configuration leaves no items.
func (h *renderHelmChart) processV010(rl *framework.ResourceList) error {
	charts, err := h.configure(rl.FunctionConfig)
	if err == nil {
		rl.Items, err = h.runV010(charts, rl.Items)
	}
	if err != nil {
		rl.Results = append(rl.Results, errorResult(err))
		return frameworkFailure(err.Error())
	}
	return nil
}

// runV010 renders the charts into the package's resources as v0.1.0's
// resource map holds them.
func (h *renderHelmChart) runV010(charts []*helmChart, items []*yaml.RNode) ([]*yaml.RNode, error) {
	var ids []resid.ResId
	for _, it := range items {
		if err := addResID(&ids, it); err != nil {
			return nil, fmt.Errorf("failed to run function: %w", err)
		}
	}
	inPackage := append([]resid.ResId(nil), ids...)
	out := items
	for _, c := range charts {
		objs, err := h.render(c, items)
		if err != nil {
			return nil, fmt.Errorf("failed to run function: %w", err)
		}
		for _, o := range objs {
			if containsExactID(inPackage, resIDOf(o)) {
				continue
			}
			if err := addResID(&ids, o); err != nil {
				return nil, fmt.Errorf("failed to run function: failed to add generated resource: %w", err)
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// resmapOfHelmOutput reads a chart's output into a resource map, as
// v0.1.0 did: two resources of one id fail; a List (which kustomize turns
// into its items through JSON) porchbot refuses.
func resmapOfHelmOutput(out string) ([]*yaml.RNode, error) {
	objs, err := readHelmOutput(out, true)
	if err != nil {
		return nil, err
	}
	var ids []resid.ResId
	for _, o := range objs {
		if k := o.GetKind(); strings.HasSuffix(k, "List") {
			return nil, fmt.Errorf("the chart rendered a %s: render-helm-chart v0.1.0 read a kind ending in List "+
				"as its items, through JSON, which porchbot does not reproduce; pin render-helm-chart v0.2.2 or later", k)
		}
		if err := addResID(&ids, o); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

func resIDOf(rn *yaml.RNode) resid.ResId {
	return resid.NewResIdWithNamespace(resid.GvkFromNode(rn), rn.GetName(), rn.GetNamespace())
}

// addResID adds rn's id to ids, as kustomize's resource map appends: an id
// equal to one it has (the namespaces "" and default being one) fails.
func addResID(ids *[]resid.ResId, rn *yaml.RNode) error {
	id := resIDOf(rn)
	for _, have := range *ids {
		if have.Equals(id) {
			return fmt.Errorf("may not add resource with an already registered id: %s", resIDStringV011(id))
		}
	}
	*ids = append(*ids, id)
	return nil
}

func containsExactID(ids []resid.ResId, id resid.ResId) bool {
	for _, have := range ids {
		if have.Gvk.Equals(id.Gvk) && have.Name == id.Name && have.Namespace == id.Namespace {
			return true
		}
	}
	return false
}

// resIDStringV011 is kyaml v0.11's ResId.String():
// group_version_kind|namespace|name, "~G", "~V", "~K", "~X", "~N" for
// what is empty.
func resIDStringV011(id resid.ResId) string {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	gvk := strings.Join([]string{or(id.Group, "~G"), or(id.Version, "~V"), or(id.Kind, "~K")}, "_")
	return strings.Join([]string{gvk, or(id.Namespace, "~X"), or(id.Name, "~N")}, "|")
}
