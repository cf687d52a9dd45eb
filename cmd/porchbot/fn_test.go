package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
	if err := runFn(context.Background(), []string{"kubeval"}, strings.NewReader(""), &out, &out); err == nil ||
		!strings.Contains(err.Error(), "set-namespace") {
		t.Errorf("unknown function error = %v", err)
	}
}
