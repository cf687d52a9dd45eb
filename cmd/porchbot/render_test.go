package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/render"
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

// TestRunRender renders with a built-in (an image kpt could only run in a
// container): nothing on stdout, kpt's progress on stderr, results.yaml.
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
	if stdout.Len() != 0 {
		t.Errorf("stdout of an in-place render: %q", stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(results, "results.yaml"))
	if err != nil || !strings.HasPrefix(string(b), "apiVersion: kpt.dev/v1\nkind: FunctionResultList\n") ||
		!strings.Contains(string(b), "  - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n    exitCode: 0\n") {
		t.Errorf("results.yaml: %v\n%s", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml")); !strings.Contains(string(b), "namespace: shop") {
		t.Errorf("not rendered:\n%s", b)
	}
	// kpt v1.0.0-beta.67's words, the default release's
	want := fmt.Sprintf("Package: %q\n[RUNNING] \"gcr.io/kpt-fn/set-namespace:v0.4.1\"\n[PASS] \"gcr.io/kpt-fn/set-namespace:v0.4.1\" in ", filepath.Base(dir))
	if !strings.HasPrefix(stderr.String(), want) ||
		!strings.HasSuffix(stderr.String(), "Successfully executed 1 function(s) in 1 package(s).\nFor complete results, see "+results+"/results.yaml\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestRunRenderFailures(t *testing.T) {
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
	results := t.TempDir()
	err := runRender(context.Background(), []string{dir, "--results-dir", results}, &stdout, &stderr)
	if !errors.As(err, new(reportedError)) {
		t.Fatalf("want an error already printed, got %v", err)
	}
	// an image named without a registry is the catalog's, where the default release looks
	if !strings.Contains(stderr.String(), "[FAIL] \"ghcr.io/kptdev/krm-functions-catalog/starlark\" in ") || !strings.Contains(stderr.String(), "  Exit code: 1\n") ||
		strings.Contains(stderr.String(), "Successfully") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(results, "results.yaml")); !strings.Contains(string(b), "exitCode: 1\n") {
		t.Errorf("results.yaml:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml")); strings.Contains(string(b), "namespace") {
		t.Errorf("written although a validator failed:\n%s", b)
	}

	execDir := writePkg(t, map[string]string{
		"Kptfile": strings.Replace(renderKptfile, "image: gcr.io/kpt-fn/set-namespace:v0.4.1", "exec: /usr/local/bin/set-namespace", 1),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	})
	stderr.Reset()
	if err := runRender(context.Background(), []string{execDir}, &stdout, &stderr); err == nil ||
		!strings.HasSuffix(stderr.String(), "Error: must run with `--allow-exec` option to allow running function binaries \n") {
		t.Errorf("exec without --allow-exec: %v\n%s", err, stderr.String())
	}
	stderr.Reset()
	if err := runRender(context.Background(), []string{execDir, "--allow-exec", "--exec-allowlist", "/opt/x"}, &stdout, &stderr); err == nil ||
		!strings.Contains(stderr.String(), "allowlist") {
		t.Errorf("exec not in the allowlist: %v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
}

// TestRunRenderSavesOnFailure: as kpt v1.0.0-beta.67, a Kptfile asking to
// save a failed render gets the mutators' output written, and kpt's line
// on how far it got before the results note; as beta.56 nothing is written.
func TestRunRenderSavesOnFailure(t *testing.T) {
	kf := strings.Replace(renderKptfile, "  annotations:\n", "  annotations:\n    kpt.dev/save-on-render-failure: \"true\"\n", 1) +
		"  validators:\n    - image: starlark:v0.5.0\n      configMap:\n        source: fail(\"denied\")\n"
	for _, kpt := range []string{"v1.0.0-beta.67", "v1.0.0-beta.56"} {
		dir := writePkg(t, map[string]string{"Kptfile": kf, "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"})
		results := t.TempDir()
		var stdout, stderr bytes.Buffer
		err := runRender(context.Background(), []string{dir, "--kpt", kpt, "--results-dir", results}, &stdout, &stderr)
		if !errors.As(err, new(reportedError)) {
			t.Fatalf("%s: want the failure, printed, got %v\n%s", kpt, err, stderr.String())
		}
		b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml"))
		summary := "Partially executed 1 function(s) in 1 package(s).\nFor complete results, see "
		if kpt == "v1.0.0-beta.56" {
			if strings.Contains(string(b), "namespace") || strings.Contains(stderr.String(), "Partially") {
				t.Errorf("beta.56 saved a failed render:\n%s\n%s", b, stderr.String())
			}
			continue
		}
		if !strings.Contains(string(b), "namespace: shop") || !strings.Contains(stderr.String(), summary) {
			t.Errorf("beta.67: cm.yaml\n%s\nstderr:\n%s", b, stderr.String())
		}
	}
}

// TestRunRenderThroughSymlink: as kpt, a package path that is a symlink
// renders the directory it names, with kpt's warning, under its name.
func TestRunRenderThroughSymlink(t *testing.T) {
	dir := writePkg(t, map[string]string{"Kptfile": renderKptfile, "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if err := runRender(context.Background(), []string{link}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	resolved, _ := filepath.EvalSymlinks(dir)
	want := fmt.Sprintf("[WARN] resolved symlink %q to %q, please note that the symlinks within the package are ignored\nPackage: %q\n", link, resolved, filepath.Base(dir))
	if !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to begin\n%s", stderr.String(), want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml")); !strings.Contains(string(b), "namespace: shop") {
		t.Errorf("the symlink's package is not rendered:\n%s", b)
	}
}

// TestRunRenderUnknownImage: an image porchbot has no built-in for fails the
// render with one message, shown once, under the function.
func TestRunRenderUnknownImage(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"Kptfile": strings.Replace(renderKptfile, "gcr.io/kpt-fn/set-namespace:v0.4.1", "gcr.io/example/frobnicate:v1", 1),
	})
	var stdout, stderr bytes.Buffer
	err := runRender(context.Background(), []string{dir}, &stdout, &stderr)
	if !errors.As(err, new(reportedError)) {
		t.Fatalf("want an error already printed, got %v", err)
	}
	if n := strings.Count(stderr.String(), "has no built-in named frobnicate"); n != 1 ||
		!strings.Contains(stderr.String(), "[FAIL] \"gcr.io/example/frobnicate:v1\" in ") {
		t.Errorf("message shown %d times:\n%s", n, stderr.String())
	}
}

// TestRunRenderProgressIsLive: kpt prints a function's [RUNNING] line as
// the function starts, so a slow function shows what is running. The
// function here waits until the test has read that line (and gives up,
// failing the render, if it never comes).
func TestRunRenderProgressIsLive(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	fn := filepath.Join(t.TempDir(), "wait")
	script := fmt.Sprintf("#!/bin/sh\ni=0\nwhile [ ! -e %q ]; do\n  i=$((i+1))\n"+
		"  if [ $i -gt 2000 ]; then echo 'never released: no [RUNNING] line while the function ran' >&2; exit 1; fi\n"+
		"  sleep 0.01\ndone\nexec cat\n", release)
	if err := os.WriteFile(fn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writePkg(t, map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: " + fn + "\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	})
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := runRender(context.Background(), []string{"--allow-exec", dir}, io.Discard, pw)
		pw.Close()
		done <- err
	}()
	var lines []string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "[RUNNING] ") {
			if err := os.WriteFile(release, nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(lines, "\n"))
	}
	want := []string{fmt.Sprintf("Package: %q", filepath.Base(dir)), fmt.Sprintf("[RUNNING] %q", fn)}
	if len(lines) < 3 || lines[0] != want[0] || lines[1] != want[1] || !strings.HasPrefix(lines[2], fmt.Sprintf("[PASS] %q in ", fn)) {
		t.Errorf("progress:\n%s", strings.Join(lines, "\n"))
	}
}

// TestRunRenderHasNoServerLimits: kpt renders a package of any size, and
// so does porchbot render; the package limits are the server's
// (docs/limits.md), which would refuse this one.
func TestRunRenderHasNoServerLimits(t *testing.T) {
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: [" + strings.Repeat("a,", 160_000) + "a]\n"
	files := map[string]string{"Kptfile": renderKptfile, "big.yaml": big}
	if _, err := render.Render(context.Background(), nil, writePkg(t, files), render.Options{}); !errors.As(err, new(*render.LimitError)) {
		t.Fatalf("the server's limits do not refuse the package: %v", err)
	}
	dir := writePkg(t, files)
	var stdout, stderr bytes.Buffer
	if err := runRender(context.Background(), []string{dir}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "big.yaml")); !strings.Contains(string(b), "namespace: shop") {
		t.Errorf("not rendered (%d bytes)", len(b))
	}
}
