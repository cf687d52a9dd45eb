// Package charts_test renders the Helm chart with Helm's own engine (the Go
// SDK, as `helm template` does, values.schema.json included) and checks the
// manifests for the default values and for each option.
package charts_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// render renders the chart with values over the defaults and returns the
// manifests by kind/name.
func render(t *testing.T, values map[string]any) (map[string]*yaml.RNode, error) {
	t.Helper()
	return renderRelease(t, "rel", values)
}

// renderRelease is render for a release of another name.
func renderRelease(t *testing.T, release string, values map[string]any) (map[string]*yaml.RNode, error) {
	t.Helper()
	c, err := loader.Load("porchbot")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(c, values, chartutil.ReleaseOptions{Name: release, Namespace: "porchbot", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(c, vals)
	if err != nil {
		return nil, err
	}
	out := map[string]*yaml.RNode{}
	for name, text := range files {
		if strings.TrimSpace(text) == "" || !strings.HasSuffix(name, ".yaml") {
			continue
		}
		nodes, err := kio.FromBytes([]byte(text))
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", name, err, text)
		}
		for _, n := range nodes {
			out[n.GetKind()+"/"+n.GetName()] = n
		}
	}
	return out, nil
}

func mustRender(t *testing.T, values map[string]any) map[string]*yaml.RNode {
	t.Helper()
	m, err := render(t, values)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func field(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil || v == nil {
		return ""
	}
	if v.YNode().Kind == yaml.ScalarNode {
		return v.YNode().Value
	}
	return strings.TrimSpace(v.MustString())
}

func base() map[string]any {
	return map[string]any{"github": map[string]any{"appId": "12345", "privateKey": "-----BEGIN KEY-----", "webhookSecret": "s3cret"}}
}

func with(v map[string]any, key string, val any) map[string]any {
	v[key] = val
	return v
}

func TestChartDefaults(t *testing.T) {
	m := mustRender(t, base())
	dep := m["Deployment/rel-porchbot"]
	if dep == nil {
		t.Fatalf("no deployment in %v", keys(m))
	}
	for path, want := range map[string]string{
		"spec.replicas": "2",
		"spec.template.spec.securityContext.runAsNonRoot":                                        "true",
		"spec.template.spec.automountServiceAccountToken":                                        "false",
		"spec.template.spec.containers.[name=porchbot].securityContext.readOnlyRootFilesystem":   "true",
		"spec.template.spec.containers.[name=porchbot].securityContext.allowPrivilegeEscalation": "false",
		"spec.template.spec.containers.[name=porchbot].readinessProbe.httpGet.path":              "/readyz",
		"spec.template.spec.containers.[name=porchbot].livenessProbe.httpGet.path":               "/healthz",
		"spec.template.spec.containers.[name=porchbot].resources.limits.memory":                  "512Mi",
		"spec.template.spec.volumes.[name=secret].secret.secretName":                             "rel-porchbot",
	} {
		if got := field(t, dep, strings.Split(path, ".")...); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if got := field(t, dep, "spec", "template", "spec", "containers", "[name=porchbot]", "securityContext", "capabilities", "drop"); got != "[ALL]" && got != "- ALL" {
		t.Errorf("capabilities.drop %q", got)
	}
	env := field(t, dep, "spec", "template", "spec", "containers", "[name=porchbot]", "env")
	for _, want := range []string{"PORCHBOT_APP_ID", "12345", "PORCHBOT_LOG_FORMAT", "PORCHBOT_RESYNC_INTERVAL", "PORCHBOT_ONBOARDING"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
	if s := m["Secret/rel-porchbot"]; s == nil || field(t, s, "stringData", "webhook-secret") != "s3cret" {
		t.Errorf("secret %v", s)
	}
	if m["PodDisruptionBudget/rel-porchbot"] == nil {
		t.Error("no PodDisruptionBudget with two replicas")
	}
	for _, absent := range []string{"ServiceMonitor/rel-porchbot", "Ingress/rel-porchbot"} {
		if m[absent] != nil {
			t.Errorf("%s rendered by default", absent)
		}
	}
	if m["Service/rel-porchbot"] == nil {
		t.Error("no service")
	}
}

func TestChartOptions(t *testing.T) {
	t.Run("existing secret", func(t *testing.T) {
		m := mustRender(t, map[string]any{"github": map[string]any{"appId": 7, "existingSecret": "mine"}})
		if m["Secret/rel-porchbot"] != nil {
			t.Fatal("the chart made a secret beside the existing one")
		}
		if got := field(t, m["Deployment/rel-porchbot"], "spec", "template", "spec", "volumes", "[name=secret]", "secret", "secretName"); got != "mine" {
			t.Fatalf("secretName %q", got)
		}
	})
	t.Run("service monitor", func(t *testing.T) {
		m := mustRender(t, with(base(), "serviceMonitor", map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}}))
		sm := m["ServiceMonitor/rel-porchbot"]
		if sm == nil || field(t, sm, "metadata", "labels", "release") != "prom" || field(t, sm, "spec", "endpoints", "[port=http]", "path") != "/metrics" {
			t.Fatalf("service monitor %v", sm)
		}
	})
	t.Run("one replica: no disruption budget", func(t *testing.T) {
		if m := mustRender(t, with(base(), "replicaCount", 1)); m["PodDisruptionBudget/rel-porchbot"] != nil {
			t.Fatal("a PodDisruptionBudget for one replica blocks node drains")
		}
	})
	t.Run("ingress", func(t *testing.T) {
		m := mustRender(t, with(base(), "ingress", map[string]any{"enabled": true, "host": "bot.example.com", "className": "nginx"}))
		ing := m["Ingress/rel-porchbot"]
		if ing == nil || field(t, ing, "spec", "ingressClassName") != "nginx" ||
			field(t, ing, "spec", "rules", "[host=bot.example.com]", "http", "paths", "[path=/api/github/hook]", "pathType") != "Exact" {
			t.Fatalf("ingress %v", ing)
		}
	})
	t.Run("catalog", func(t *testing.T) {
		v := base()
		v["github"].(map[string]any)["clientId"] = "Iv1.abc"
		v["github"].(map[string]any)["clientSecret"] = "cs"
		v["catalog"] = map[string]any{"enabled": true, "url": "https://bot.example.com"}
		v["ingress"] = map[string]any{"enabled": true, "host": "bot.example.com"}
		m := mustRender(t, v)
		env := field(t, m["Deployment/rel-porchbot"], "spec", "template", "spec", "containers", "[name=porchbot]", "env")
		for _, want := range []string{"PORCHBOT_CATALOG", "https://bot.example.com", "key: client-id", "/etc/porchbot/client-secret"} {
			if !strings.Contains(env, want) {
				t.Errorf("env lacks %s:\n%s", want, env)
			}
		}
		if s := m["Secret/rel-porchbot"]; field(t, s, "stringData", "client-id") != "Iv1.abc" || field(t, s, "stringData", "client-secret") != "cs" {
			t.Errorf("secret %v", s)
		}
		paths := field(t, m["Ingress/rel-porchbot"], "spec", "rules", "[host=bot.example.com]", "http", "paths")
		for _, p := range []string{"path: /api/github/hook", "path: /login/callback", "path: /repos/", "path: /\n"} {
			if !strings.Contains(paths+"\n", p) {
				t.Errorf("ingress paths lack %q:\n%s", p, paths)
			}
		}
		if strings.Contains(paths, "path: /metrics") {
			t.Errorf("ingress routes /metrics:\n%s", paths)
		}
		noURL := map[string]any{"github": map[string]any{"appId": 7, "existingSecret": "mine"}, "catalog": map[string]any{"enabled": true}}
		if _, err := render(t, noURL); err == nil || !strings.Contains(err.Error(), "catalog.url") {
			t.Errorf("catalog without url: %v", err)
		}
	})
	t.Run("function images", func(t *testing.T) {
		v := with(base(), "functionImages", map[string]any{"allow": []any{"ghcr.io/acme/fns/*:v1.*", "localhost:5000/fn"},
			"existingClaim": "fn-cache"})
		d := mustRender(t, v)["Deployment/rel-porchbot"]
		env := field(t, d, "spec", "template", "spec", "containers", "[name=porchbot]", "env")
		for _, want := range []string{"ghcr.io/acme/fns/*:v1.*,localhost:5000/fn", "PORCHBOT_FUNCTION_IMAGE_CACHE"} {
			if !strings.Contains(env, want) {
				t.Errorf("env lacks %s:\n%s", want, env)
			}
		}
		if got := field(t, d, "spec", "template", "spec", "volumes", "[name=function-images]", "persistentVolumeClaim", "claimName"); got != "fn-cache" {
			t.Errorf("claim %q", got)
		}
		if env := field(t, mustRender(t, base())["Deployment/rel-porchbot"], "spec", "template", "spec", "containers", "[name=porchbot]", "env"); strings.Contains(env, "FUNCTION_IMAGE") {
			t.Errorf("function image settings by default:\n%s", env)
		}
	})
	t.Run("chart repositories", func(t *testing.T) {
		v := with(base(), "chartRepositories", []any{"https://charts.example/stable", "http://10.0.0.5/charts"})
		env := field(t, mustRender(t, v)["Deployment/rel-porchbot"], "spec", "template", "spec", "containers", "[name=porchbot]", "env")
		if !strings.Contains(env, "PORCHBOT_CHART_REPOSITORIES") || !strings.Contains(env, "https://charts.example/stable,http://10.0.0.5/charts") {
			t.Errorf("env lacks the chart repositories:\n%s", env)
		}
		if env := field(t, mustRender(t, base())["Deployment/rel-porchbot"], "spec", "template", "spec", "containers", "[name=porchbot]", "env"); strings.Contains(env, "CHART_REPOSITORIES") {
			t.Errorf("chart repositories by default:\n%s", env)
		}
		if _, err := render(t, with(base(), "chartRepositories", []any{"oci://registry.example/charts"})); err == nil {
			t.Errorf("an oci:// entry passed the values schema")
		}
	})
	t.Run("extra settings", func(t *testing.T) {
		v := base()
		v["server"] = map[string]any{"extraEnv": []any{map[string]any{"name": "PORCHBOT_EXEC_ALLOWLIST", "value": "kubeval=/usr/bin/kubeval"}}}
		env := field(t, mustRender(t, v)["Deployment/rel-porchbot"], "spec", "template", "spec", "containers", "[name=porchbot]", "env")
		if !strings.Contains(env, "kubeval=/usr/bin/kubeval") {
			t.Fatalf("env:\n%s", env)
		}
	})
}

func TestChartRefusesBadValues(t *testing.T) {
	for name, tc := range map[string]struct {
		values map[string]any
		want   string
	}{
		"no app id":        {map[string]any{"github": map[string]any{"existingSecret": "s"}}, "github.appId is required"},
		"no key":           {map[string]any{"github": map[string]any{"appId": "1"}}, "github.privateKey (or github.existingSecret) is required"},
		"replicas as text": {with(base(), "replicaCount", "two"), "replicaCount"},
		"app id as text": {func() map[string]any {
			v := base()
			v["github"].(map[string]any)["appId"] = "abc"
			return v
		}(), "appId"},
		"unknown value": {with(base(), "replicas", 3), "replicas"},
		"bad duration":  {with(base(), "server", map[string]any{"mutationSpacing": "one second"}), "mutationSpacing"},
		"extra env not ours": {func() map[string]any {
			v := base()
			v["server"] = map[string]any{"extraEnv": []any{map[string]any{"name": "LD_PRELOAD", "value": "x"}}}
			return v
		}(), "name"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := render(t, tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func keys(m map[string]*yaml.RNode) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestChartNamesAndRolls (#26): a release named after the chart names its
// resources once ("porchbot", not "porchbot-porchbot"); the pods' secret
// checksum follows the chart's Secret, and with an existingSecret is the
// cluster's copy as Helm looks it up (empty offline), not the unused
// Secret template's.
func TestChartNamesAndRolls(t *testing.T) {
	m, err := renderRelease(t, "porchbot", base())
	if err != nil {
		t.Fatal(err)
	}
	if m["Deployment/porchbot"] == nil || m["Service/porchbot"] == nil || m["Secret/porchbot"] == nil {
		t.Fatalf("release porchbot: %v", keys(m))
	}
	sum := func(values map[string]any) string {
		t.Helper()
		return field(t, mustRender(t, values)["Deployment/rel-porchbot"], "spec", "template", "metadata", "annotations", "checksum/secret")
	}
	a := sum(base())
	rotated := base()
	rotated["github"].(map[string]any)["webhookSecret"] = "rotated"
	if b := sum(rotated); a == "" || a == b {
		t.Errorf("the checksum does not follow the chart's Secret: %q, %q", a, b)
	}
	existing := map[string]any{"github": map[string]any{"appId": "12345", "existingSecret": "mine"}}
	if got := sum(existing); got == a || got == "" {
		t.Errorf("with an existingSecret the checksum is the Secret template's: %q", got)
	}
}
