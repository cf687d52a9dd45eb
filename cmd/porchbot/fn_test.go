package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/render/builtins"
)

func TestRunFnRoundTrip(t *testing.T) {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # the web tier
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'deployment.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'deployment.yaml'
      config.k8s.io/id: '1'
      internal.config.kubernetes.io/id: '1'
  spec:
    replicas: 2
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
    annotations:
      config.kubernetes.io/local-config: "true"
  data:
    namespace: shop
`
	var out, errOut bytes.Buffer
	if err := runFn(context.Background(), []string{"gcr.io/kpt-fn/set-namespace:v0.4.1"}, strings.NewReader(in), &out, &errOut); err != nil {
		t.Fatalf("runFn: %v (stderr %q)", err, errOut.String())
	}
	want := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web # the web tier
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'deployment.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'deployment.yaml'
      config.k8s.io/id: '1'
      internal.config.kubernetes.io/id: '1'
    namespace: shop
  spec:
    replicas: 2
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
    annotations:
      config.kubernetes.io/local-config: "true"
  data:
    namespace: shop
results:
- message: Resource(apiVersion=apps/v1, kind=Deployment, namespace=, name=web) does not have upstream origin.
  severity: warning
- message: namespace [default] updated to "shop", 1 value(s) changed
  severity: info
- message: all ` + "`depends-on`" + ` annotations are up-to-date. no ` + "`namespace`" + ` changed
  severity: info
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestRunFnFailure(t *testing.T) {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replicas: 2
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: StarlarkRun
  metadata:
    name: max-replicas
  source: |
    for r in ctx.resource_list["items"]:
      if r["spec"]["replicas"] > 1:
        fail("too many replicas")
`
	var out, errOut bytes.Buffer
	err := runFn(context.Background(), []string{"starlark"}, strings.NewReader(in), &out, &errOut)
	if err == nil {
		t.Fatal("want an error")
	}
	if !strings.Contains(out.String(), "results:\n- message: 'fail: too many replicas'\n  severity: error\n") {
		t.Errorf("output lacks the error result:\n%s", out.String())
	}
}

func TestRunFnList(t *testing.T) {
	var out bytes.Buffer
	if err := runFn(context.Background(), nil, strings.NewReader(""), &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"set-namespace", "starlark", "apply-setters"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("list lacks %s:\n%s", name, out.String())
		}
	}
	if err := runFn(context.Background(), []string{"source-gcloud-config"}, strings.NewReader(""), &out, &out); err == nil ||
		!strings.Contains(err.Error(), "set-namespace") {
		t.Errorf("unknown function error = %v", err)
	}
}

// `porchbot fn --help` lists, per built-in, the catalog releases it runs.
func TestFnHelpListsReleases(t *testing.T) {
	var out bytes.Buffer
	if err := runFn(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range builtins.All() {
		line := ""
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), s.Name+" ") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, s.VersionRanges()) || s.VersionRanges() == "" {
			t.Errorf("%s: no line listing its releases %q:\n%s", s.Name, s.VersionRanges(), out.String())
		}
	}
}

// An image argument runs the release it names (latest, or no tag, the
// newest porchbot knows), and is refused as a render refuses it when
// porchbot cannot tie it to a release it reproduces.
func TestRunFnVersions(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  data:\n    namespace: x\n"
	for arg, want := range map[string]string{
		"set-namespace":                      "",
		"set-namespace:v0.4":                 "",
		"gcr.io/kpt-fn/set-namespace:latest": "",
		"gcr.io/kpt-fn/set-namespace:v9.9.9": `the tag "v9.9.9" is not a release of set-namespace`,
		"gcr.io/kpt-fn/set-namespace":        "",
		"gcr.io/kpt-fn/set-namespace:stable": `the tag "stable" is not a release of set-namespace`,
		"frobnicate":                         `unknown function "frobnicate"`,
	} {
		var out, errOut bytes.Buffer
		err := runFn(context.Background(), []string{arg}, strings.NewReader(in), &out, &errOut)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", arg, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want %q", arg, err, want)
		}
	}
}

// `porchbot fn kubeconform` reads the schemas PORCHBOT_SCHEMA_DIR names.
func TestFnValidatorReadsSchemaDir(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: invalid\n"
	var out, errOut bytes.Buffer
	t.Setenv("PORCHBOT_SCHEMA_DIR", "")
	if err := runFn(context.Background(), []string{"kubeconform"}, strings.NewReader(in), &out, &errOut); err != nil {
		t.Errorf("no schemas: %v", err)
	}
	t.Setenv("PORCHBOT_SCHEMA_DIR", filepath.Join("..", "..", "testdata", "kube-schemas"))
	out.Reset()
	err := runFn(context.Background(), []string{"kubeconform"}, strings.NewReader(in), &out, &errOut)
	if err == nil || !strings.Contains(out.String(), "got string, want null or integer") {
		t.Errorf("with schemas: %v\n%s", err, out.String())
	}
}

// upsert-resource ran on kyaml v0.10's framework, which did not reconcile
// the internal path annotation with the legacy one the function changed:
// `porchbot fn` hands the copy back with the config's internal path, as the
// release did (kpt then finds two resources at fn-config.yaml).
func TestRunFnUnreconciled(t *testing.T) {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'fn-config.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'fn-config.yaml'
  data:
    k: v
`
	var out, errOut bytes.Buffer
	if err := runFn(context.Background(), []string{"upsert-resource:v0.2.0"}, strings.NewReader(in), &out, &errOut); err != nil {
		t.Fatalf("runFn: %v (stderr %q)", err, errOut.String())
	}
	for _, want := range []string{"config.kubernetes.io/path: cm.yaml\n", "internal.config.kubernetes.io/path: fn-config.yaml\n", "k: v\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in:\n%s", want, out.String())
		}
	}
}
