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
