package render

import (
	"context"
	"strings"
	"testing"
	"time"
)

// helmPkg is a package whose chart webapp has the template cm.yaml.
func helmPkg(template string) map[string]string {
	return map[string]string{
		"Kptfile": kptfile("app", "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/render-helm-chart:v0.3.0\n"+
			"      configMap:\n        chartHome: charts\n        name: webapp\n        releaseName: r\n"),
		".krmignore":                      "charts\n",
		"charts/webapp/Chart.yaml":        "apiVersion: v2\nname: webapp\nversion: 0.1.0\n",
		"charts/webapp/values.yaml":       "color: red\n",
		"charts/webapp/templates/cm.yaml": template,
	}
}

// With a sandbox, render-helm-chart templates the chart in it: the
// package's chart renders as in process, and a chart whose templates
// allocate without end is stopped by the function limits, not left to
// take the server's memory.
func TestRenderHelmChartTemplatesInTheSandbox(t *testing.T) {
	files := helmPkg("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  color: {{ .Values.color }}\n")
	fs, root := memPkg(t, files)
	if _, err := Render(context.Background(), fs, root, Options{Bounds: Bounds{Sandbox: testSandbox(FunctionLimits{})}}); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(root + "/configmap_r-cm.yaml")
	if err != nil || !strings.Contains(string(b), "color: red") {
		t.Fatalf("the sandboxed chart: %v\n%s", err, b)
	}

	files = helmPkg("{{ range $i := until 2000000000 }}{{ $i }}{{ end }}\n")
	_, err = sandboxedRender(t, files, FunctionLimits{Memory: 96 << 20, Wall: 20 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "exceeded its memory limit of 96 MiB (server setting fn-memory") {
		t.Fatalf("a chart that allocates: err = %v, want the memory limit", err)
	}
}
