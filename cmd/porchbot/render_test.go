package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const renderKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: shop
`

func TestRunRender(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"Kptfile": renderKptfile,
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	})
	results := filepath.Join(t.TempDir(), "res")
	var stdout, stderr bytes.Buffer
	if err := runRender(context.Background(), []string{dir, "--results-dir", results}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "apiVersion: kpt.dev/v1\nkind: FunctionResultList\n") ||
		!strings.Contains(stdout.String(), "  - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n    exitCode: 0\n") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if b, err := os.ReadFile(filepath.Join(results, "results.yaml")); err != nil || string(b) != stdout.String() {
		t.Errorf("results.yaml: %v\n%s", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml")); !strings.Contains(string(b), "namespace: shop") {
		t.Errorf("not rendered:\n%s", b)
	}
	if !strings.Contains(stderr.String(), "[PASS]") || !strings.Contains(stderr.String(), "Successfully executed 1 function(s) in 1 package(s)") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestRunRenderJSONAndFailures(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"Kptfile": renderKptfile + "  validators:\n    - image: starlark\n      configPath: policy.yaml\n",
		"policy.yaml": `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: deny
  annotations:
    config.kubernetes.io/local-config: "true"
source: |
  fail("denied")
`,
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	})
	var stdout, stderr bytes.Buffer
	err := runRender(context.Background(), []string{"--output", "json", dir}, &stdout, &stderr)
	if err == nil {
		t.Fatal("want an error")
	}
	var l struct {
		ExitCode int `json:"exitCode"`
		Items    []struct {
			ExitCode int `json:"exitCode"`
		} `json:"items"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &l); jerr != nil || l.ExitCode != 1 || len(l.Items) != 2 || l.Items[1].ExitCode != 1 {
		t.Errorf("json %v %+v\n%s", jerr, l, stdout.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml")); strings.Contains(string(b), "namespace") {
		t.Errorf("written although a validator failed:\n%s", b)
	}

	execDir := writePkg(t, map[string]string{
		"Kptfile": strings.Replace(renderKptfile, "image: gcr.io/kpt-fn/set-namespace:v0.4.1", "exec: /usr/local/bin/set-namespace", 1),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	})
	stdout.Reset()
	if err := runRender(context.Background(), []string{execDir}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--allow-exec") {
		t.Errorf("exec without --allow-exec: %v", err)
	}
	if err := runRender(context.Background(), []string{execDir, "--allow-exec", "--exec-allowlist", "/opt/x"}, &stdout, &stderr); err == nil ||
		!strings.Contains(err.Error(), "allowlist") {
		t.Errorf("exec not in the allowlist: %v", err)
	}
	if err := runRender(context.Background(), []string{"--output", "xml", dir}, &stdout, &stderr); err == nil {
		t.Error("bad --output accepted")
	}
}
