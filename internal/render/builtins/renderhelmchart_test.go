package builtins

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/porchbot/porchbot/internal/render/builtins/charttest"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// a chart's files, relative to the chart directory
var testChart = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: webapp\nversion: 0.1.0\n",
	"values.yaml": "greeting: hello\n",
	"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-webapp\n" +
		"data:\n  greeting: {{ .Values.greeting }}\n  ns: {{ .Release.Namespace }}\n",
}

// memPackage is a package's files in memory, for PackageFiles.
func memPackage(files map[string]string) *PackageFiles {
	return &PackageFiles{
		Read: func(rel string) ([]byte, error) {
			if c, ok := files[rel]; ok {
				return []byte(c), nil
			}
			return nil, fs.ErrNotExist
		},
		List: func(rel string) ([]string, error) {
			var out []string
			for p := range files {
				if strings.HasPrefix(p, rel+"/") {
					out = append(out, p)
				}
			}
			if len(out) == 0 {
				return nil, fs.ErrNotExist
			}
			sort.Strings(out)
			return out, nil
		},
	}
}

// chartTgz is the chart webapp's archive.
func chartTgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	prefixed := map[string]string{}
	for name, c := range files {
		prefixed["webapp/"+name] = c
	}
	return charttest.Archive(t, prefixed)
}

// runHelmChart runs render-helm-chart v0.3.0 with config over no items.
func runHelmChart(t *testing.T, config string, src ChartSources) ([]*yaml.RNode, error) {
	t.Helper()
	rl, err := runHelmChartRelease(t, "v0.3.0", config, src)
	return rl.Items, err
}

// runHelmChartRelease runs a release of render-helm-chart with config
// (none: "") over items.
func runHelmChartRelease(t *testing.T, version, config string, src ChartSources, items ...*yaml.RNode) (*framework.ResourceList, error) {
	t.Helper()
	r, err := Resolve("render-helm-chart", version)
	if err != nil || r.Version != version {
		t.Fatalf("render-helm-chart %s: %s %v", version, r.Version, err)
	}
	f := r.New()
	f.(ChartUser).UseCharts(src)
	rl := &framework.ResourceList{Items: items}
	if config != "" {
		rl.FunctionConfig = yaml.MustParse(config)
	}
	err = f.Process(rl)
	return rl, err
}

func remoteConfig(repo string) string {
	return fmt.Sprintf(`apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: remote
helmCharts:
  - chartArgs:
      name: webapp
      version: 0.1.0
      repo: %s
    templateOptions:
      releaseName: r
      namespace: apps
`, repo)
}

// failingTransport fails the test on any request: nothing may be fetched.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.t.Errorf("porchbot fetched %s", req.URL)
	return nil, fmt.Errorf("no network in this test")
}

func TestRenderHelmChartFetchesFromAnAllowedRepository(t *testing.T) {
	tgz := chartTgz(t, testChart)
	var served atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/charts/index.yaml", func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		fmt.Fprint(w, "apiVersion: v1\nentries:\n  webapp:\n  - name: webapp\n    version: 0.1.0\n    apiVersion: v2\n    urls: [webapp-0.1.0.tgz]\n")
	})
	mux.HandleFunc("/charts/webapp-0.1.0.tgz", func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		_, _ = w.Write(tgz)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	repos, err := ParseChartRepos([]string{srv.URL + "/charts/"})
	if err != nil {
		t.Fatal(err)
	}
	repos.Client = srv.Client()
	items, err := runHelmChart(t, remoteConfig(srv.URL+"/charts"), ChartSources{Repos: repos})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("got %d items, want the chart's ConfigMap", len(items))
	}
	got := items[0].MustString()
	for _, want := range []string{"name: r-webapp", "greeting: hello", "ns: apps"} {
		if !strings.Contains(got, want) {
			t.Errorf("the rendered ConfigMap lacks %q:\n%s", want, got)
		}
	}
	if served.Load() != 2 {
		t.Errorf("the repository served %d requests, want the index and the archive", served.Load())
	}
}

func TestRenderHelmChartRefusesAnUnlistedRepository(t *testing.T) {
	repos, err := ParseChartRepos([]string{"https://charts.example/stable"})
	if err != nil {
		t.Fatal(err)
	}
	repos.Client = &http.Client{Transport: failingTransport{t}}
	for _, repo := range []string{"https://charts.example/other", "https://evil.example/stable", "http://charts.example/stable", "oci://charts.example/stable"} {
		_, err := runHelmChart(t, remoteConfig(repo), ChartSources{Repos: repos, Package: memPackage(nil)})
		if err == nil || !strings.Contains(err.Error(), "is not one the server allows") {
			t.Errorf("repo %s: got %v, want the repository refused", repo, err)
		}
	}
	// no allowlist at all
	if _, err := runHelmChart(t, remoteConfig("https://charts.example/stable"), ChartSources{}); err == nil ||
		!strings.Contains(err.Error(), "is not one the server allows") {
		t.Errorf("without an allowlist: got %v, want the repository refused", err)
	}
}

func TestRenderHelmChartRefusesAnArchiveOnAnotherHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/index.yaml" {
			t.Errorf("porchbot fetched %s", r.URL)
		}
		fmt.Fprint(w, "apiVersion: v1\nentries:\n  webapp:\n  - name: webapp\n    version: 0.1.0\n    urls: [https://elsewhere.example/webapp-0.1.0.tgz]\n")
	}))
	defer srv.Close()
	repos, _ := ParseChartRepos([]string{srv.URL})
	repos.Client = srv.Client()
	_, err := runHelmChart(t, remoteConfig(srv.URL), ChartSources{Repos: repos})
	if err == nil || !strings.Contains(err.Error(), "on another host") {
		t.Errorf("got %v, want the archive's host refused", err)
	}
}

func TestRenderHelmChartKeepsToThePackage(t *testing.T) {
	pkg := map[string]string{}
	for name, c := range testChart {
		pkg["charts/webapp/"+name] = c
	}
	src := ChartSources{Package: memPackage(pkg), Repos: &ChartRepos{Client: &http.Client{Transport: failingTransport{t}}}}
	config := func(home, values string) string {
		return fmt.Sprintf(`apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: local
helmGlobals:
  chartHome: %s
helmCharts:
  - chartArgs:
      name: webapp
    templateOptions:
      releaseName: l
      values:
        valuesFiles: [%s]
`, home, values)
	}
	items, err := runHelmChart(t, config("charts", "charts/webapp/values.yaml"), src)
	if err != nil || len(items) != 1 || !strings.Contains(items[0].MustString(), "ns: default") {
		t.Fatalf("the package's chart: %v, %d items", err, len(items))
	}
	for _, c := range []struct{ home, values, want string }{
		{"../charts", "charts/webapp/values.yaml", `the chartHome "../charts" is not a path inside the package`},
		{"/tmp/charts", "charts/webapp/values.yaml", `the chartHome "/tmp/charts" is not a path inside the package`},
		{"charts", "https://values.example/v.yaml", `the values file "https://values.example/v.yaml" is not a path inside the package`},
		{"charts", "../../etc/passwd", `the values file "../../etc/passwd" is not a path inside the package`},
		{"elsewhere", "charts/webapp/values.yaml", `the chart "webapp" is not a directory of the package (elsewhere/webapp) and no repo is given`},
	} {
		_, err := runHelmChart(t, config(c.home, c.values), src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("chartHome %s, values %s: got %v, want %q", c.home, c.values, err, c.want)
		}
	}
}

func TestRenderHelmChartBoundsTheChart(t *testing.T) {
	pkg := map[string]string{}
	for name, c := range testChart {
		pkg["tmp/charts/webapp/"+name] = c // the default chartHome
	}
	for i := 0; i <= maxChartFiles; i++ {
		pkg[path.Join("tmp/charts/webapp/files", fmt.Sprintf("f%04d.txt", i))] = "x"
	}
	_, err := runHelmChart(t, remoteConfig(""), ChartSources{Package: memPackage(pkg)})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d files", maxChartFiles)) {
		t.Errorf("got %v, want the chart refused for its files", err)
	}
	big := map[string]string{"Chart.yaml": testChart["Chart.yaml"], "big.txt": strings.Repeat("x", maxChartBytes+1)}
	if _, err := untarChart(chartTgz(t, big)); err == nil || !strings.Contains(err.Error(), "bytes uncompressed") {
		t.Errorf("got %v, want the archive refused for its size", err)
	}
}

// Templates run client-only: lookup finds nothing (no cluster is asked),
// and a hook is rendered with the manifests, never run.
// defaultHomeChart is a package holding the chart webapp, with these
// templates, in the default chartHome.
func defaultHomeChart(templates map[string]string) map[string]string {
	pkg := map[string]string{"tmp/charts/webapp/Chart.yaml": testChart["Chart.yaml"], "tmp/charts/webapp/values.yaml": "{}\n"}
	for name, c := range templates {
		pkg["tmp/charts/webapp/templates/"+name] = c
	}
	return pkg
}

func TestRenderHelmChartIsClientOnly(t *testing.T) {
	pkg := defaultHomeChart(map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: looked-up\ndata:\n" +
			"  found: {{ lookup \"v1\" \"Namespace\" \"\" \"kube-system\" | len | quote }}\n",
		"hook.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n" +
			"    helm.sh/hook: post-install\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: []\n",
	})
	items, err := runHelmChart(t, remoteConfig(""), ChartSources{Package: memPackage(pkg)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.GetKind()+"/"+it.GetName()+" "+scalarValue(it, "data", "found"))
	}
	if strings.Join(got, ", ") != "ConfigMap/looked-up 0, Job/migrate " {
		t.Errorf("got %q, want the ConfigMap with nothing looked up, then the hook", got)
	}
}

func TestRenderHelmChartBoundsTheOutput(t *testing.T) {
	pkg := defaultHomeChart(map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n" +
		fmt.Sprintf("  x: {{ repeat %d \"x\" }}\n", maxHelmOutput)})
	_, err := runHelmChart(t, remoteConfig(""), ChartSources{Package: memPackage(pkg)})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rendered more than %d bytes", maxHelmOutput)) {
		t.Errorf("got %v, want the output refused for its size", err)
	}
}
