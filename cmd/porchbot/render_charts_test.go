package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/porchbot/porchbot/internal/render/builtins/charttest"
)

// TestRunRenderFetchesChartsFromListedRepositories: `porchbot render
// --chart-repositories` lets render-helm-chart fetch a chart the package
// does not carry from a repository it lists (here one on loopback);
// without the flag, the same package fails naming the setting, and the
// repository is never asked.
func TestRunRenderFetchesChartsFromListedRepositories(t *testing.T) {
	tgz := charttest.Archive(t, map[string]string{
		"webapp/Chart.yaml":        "apiVersion: v2\nname: webapp\nversion: 1.2.0\n",
		"webapp/values.yaml":       "color: blue\n",
		"webapp/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  color: {{ .Values.color }}\n",
	})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch r.URL.Path {
		case "/stable/index.yaml":
			fmt.Fprint(w, "apiVersion: v1\nentries:\n  webapp:\n  - name: webapp\n    version: 1.2.0\n    urls: [charts/webapp-1.2.0.tgz]\n")
		case "/stable/charts/webapp-1.2.0.tgz":
			_, _ = w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	repo := srv.URL + "/stable"
	files := map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n" +
			"    - image: gcr.io/kpt-fn/render-helm-chart:v0.3.0\n      configMap:\n        name: webapp\n" +
			"        version: 1.2.x\n        repo: " + repo + "\n        releaseName: shop\n",
	}

	dir := writePkg(t, files)
	var stdout, stderr bytes.Buffer
	err := runRender(context.Background(), []string{dir}, &stdout, &stderr)
	if err == nil || !strings.Contains(stderr.String(), "--chart-repositories") || requests.Load() != 0 {
		t.Errorf("unlisted: %v, %d requests\n%s", err, requests.Load(), stderr.String())
	}

	dir = writePkg(t, files)
	stderr.Reset()
	err = runRender(context.Background(), []string{dir, "--chart-repositories", repo}, &stdout, &stderr)
	b, _ := os.ReadFile(filepath.Join(dir, "configmap_shop-cm.yaml"))
	if err != nil || !strings.Contains(string(b), "color: blue") {
		t.Errorf("listed: %v\n%s\n%s", err, stderr.String(), b)
	}
	if err := runRender(context.Background(), []string{dir, "--chart-repositories", "ftp://charts.example"}, &stdout, &stderr); err == nil ||
		!strings.Contains(err.Error(), "--chart-repositories") {
		t.Errorf("a bad list: %v", err)
	}
}

// TestFnRenderHelmChartReadsTheWorkingDirectory: `porchbot fn
// render-helm-chart`, as an exec function, reads a chart directory
// relative to its working directory, as the catalog's image does, and
// nothing outside it.
func TestFnRenderHelmChartReadsTheWorkingDirectory(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"charts/webapp/Chart.yaml":        "apiVersion: v2\nname: webapp\nversion: 0.1.0\n",
		"charts/webapp/values.yaml":       "color: green\n",
		"charts/webapp/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  color: {{ .Values.color }}\n",
	})
	t.Chdir(dir)
	in := func(home string) string {
		return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n" +
			"  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    chartHome: " + home +
			"\n    name: webapp\n    releaseName: x\n"
	}
	var out, errOut bytes.Buffer
	if err := runFn(context.Background(), []string{"render-helm-chart"}, strings.NewReader(in("charts")), &out, &errOut); err != nil ||
		!strings.Contains(out.String(), "name: x-cm") || !strings.Contains(out.String(), "color: green") {
		t.Errorf("the working directory's chart: %v\n%s%s", err, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	err := runFn(context.Background(), []string{"render-helm-chart"}, strings.NewReader(in("../"+filepath.Base(dir)+"/charts")), &out, &errOut)
	if err == nil || !strings.Contains(errOut.String(), "is not a path inside the package") {
		t.Errorf("a chartHome outside: %v\n%s", err, errOut.String())
	}
}
