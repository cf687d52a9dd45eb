package builtins

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	helmrelease "helm.sh/helm/v3/pkg/release"
)

// helmTemplate renders a chart as `helm template` does, client-only: no
// cluster is contacted (the lookup function finds nothing), no hook runs
// (hooks are printed with the manifests, test hooks left out with
// skipTests). kube is the Kubernetes version the release's helm reports
// in .Capabilities.KubeVersion.
func (c *helmChart) helmTemplate(files []*loader.BufferedFile, vals map[string]any, kube string) (string, error) {
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return "", err
	}
	if err := checkHelmDependencies(ch); err != nil {
		return "", err
	}
	if ch.Metadata.Type != "" && ch.Metadata.Type != "application" {
		return "", fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
	}
	kv, err := chartutil.ParseKubeVersion(kube)
	if err != nil {
		return "", err
	}
	in := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	in.DryRun, in.ClientOnly, in.Replace = true, true, true
	in.KubeVersion = kv
	in.APIVersions = chartutil.VersionSet(c.APIVersions)
	in.Description = c.Description
	in.NameTemplate = c.NameTemplate
	in.Namespace = c.Namespace
	if in.Namespace == "" {
		in.Namespace = "default"
	}
	in.ReleaseName, err = c.helmReleaseName(in)
	if err != nil {
		return "", err
	}
	rel, err := in.Run(ch, vals)
	if err != nil {
		return "", err
	}
	// the CRDs first, each named by its path in its chart (Helm v3.11;
	// later Helm names it by the chart's full path)
	var crds bytes.Buffer
	if c.IncludeCRDs {
		for _, crd := range ch.CRDObjects() {
			fmt.Fprintf(&crds, "---\n# Source: %s\n%s\n", crd.Name, crd.File.Data)
		}
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(crds.String()+rel.Manifest))
	for _, h := range rel.Hooks {
		if c.SkipTests && isHelmTestHook(h) {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return out.String(), nil
}

// helmReleaseName is the release name `helm template` uses given the
// release's arguments: the releaseName, else the nameTemplate, else a
// generated one (--generate-name: the chart's directory name and the time).
func (c *helmChart) helmReleaseName(in *action.Install) (string, error) {
	args := []string{path.Join(c.ChartHome, c.Name)}
	if c.ReleaseName != "" {
		args = append([]string{c.ReleaseName}, args...)
	} else {
		in.GenerateName = true
	}
	name, _, err := in.NameAndChart(args)
	in.GenerateName = false
	if err != nil {
		return "", err
	}
	return name, nil
}

func isHelmTestHook(h *helmrelease.Hook) bool {
	for _, e := range h.Events {
		if e == helmrelease.HookTest {
			return true
		}
	}
	return false
}

// checkHelmDependencies fails as `helm template` does when the chart
// declares dependencies it does not carry.
func checkHelmDependencies(ch *chart.Chart) error {
	req := ch.Metadata.Dependencies
	if len(req) == 0 {
		return nil
	}
	if err := action.CheckDependencies(ch, req); err != nil {
		return fmt.Errorf("an error occurred while checking for chart dependencies. "+
			"You may need to run `helm dependency build` to fetch missing dependencies: %w", err)
	}
	return nil
}
