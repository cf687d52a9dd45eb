package charts_test

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/internal/setup"
)

// envValue is the value of the porchbot container's environment variable.
func envValue(t *testing.T, dep *yaml.RNode, name string) string {
	t.Helper()
	return field(t, dep, "spec", "template", "spec", "containers", "[name=porchbot]", "env", "[name="+name+"]", "value")
}

// TestChartTakesSetupsSecret: the Secret `porchbot setup --secret NAME`
// prints is what the chart reads with github.existingSecret: its keys are
// the files the pod is told to read, under the secret's mount.
func TestChartTakesSetupsSecret(t *testing.T) {
	text := setup.SecretYAML("porchbot-github", setup.Credentials{AppID: 4242, PEM: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----\n", WebhookSecret: "s"})
	secret, err := yaml.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	appID := secret.GetAnnotations()["porchbot.dev/app-id"]
	m := mustRender(t, map[string]any{"github": map[string]any{"appId": appID, "existingSecret": secret.GetName()}})
	dep := m["Deployment/rel-porchbot"]
	if got := field(t, dep, "spec", "template", "spec", "volumes", "[name=secret]", "secret", "secretName"); got != "porchbot-github" {
		t.Fatalf("secretName %q", got)
	}
	mount := field(t, dep, "spec", "template", "spec", "containers", "[name=porchbot]", "volumeMounts", "[name=secret]", "mountPath")
	for _, env := range []string{"PORCHBOT_PRIVATE_KEY_PATH", "PORCHBOT_WEBHOOK_SECRET_PATH"} {
		p := envValue(t, dep, env)
		if path.Dir(p) != mount || field(t, secret, "stringData", path.Base(p)) == "" {
			t.Errorf("%s=%s: not a key of setup's Secret mounted at %s:\n%s", env, p, mount, text)
		}
	}
	if envValue(t, dep, "PORCHBOT_APP_ID") != "4242" {
		t.Errorf("app id %q", envValue(t, dep, "PORCHBOT_APP_ID"))
	}
}

// TestChartFitsTheImageAndServer: the chart's default image is the one
// `make image` builds, its pod runs as the image's user, and its probes and
// ingress path are the paths porchbot serves.
func TestChartFitsTheImageAndServer(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	img := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*([^:\s]+):`).FindSubmatch(makefile)
	user := regexp.MustCompile(`(?m)^USER\s+(\d+)`).FindSubmatch(dockerfile)
	if img == nil || user == nil {
		t.Fatalf("no IMAGE in the Makefile or USER in the Dockerfile")
	}
	m := mustRender(t, with(base(), "ingress", map[string]any{"enabled": true, "host": "bot.example.com"}))
	dep := m["Deployment/rel-porchbot"]
	c := []string{"spec", "template", "spec", "containers", "[name=porchbot]"}
	for p, want := range map[string]string{
		"image":                       string(img[1]) + ":0.1.0",
		"readinessProbe.httpGet.path": ingress.ReadyzPath,
		"livenessProbe.httpGet.path":  ingress.HealthzPath,
		"resources.requests.cpu":      "100m",
		"resources.requests.memory":   "128Mi",
	} {
		if got := field(t, dep, append(c, strings.Split(p, ".")...)...); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if got := field(t, dep, "spec", "template", "spec", "securityContext", "runAsUser"); got != string(user[1]) {
		t.Errorf("runAsUser %s, the image's USER %s", got, user[1])
	}
	if field(t, m["Ingress/rel-porchbot"], "spec", "rules", "[host=bot.example.com]", "http", "paths", "[path="+ingress.HookPath+"]", "pathType") == "" {
		t.Errorf("the ingress does not route %s", ingress.HookPath)
	}
}

// TestReadmeHelmInstall: the helm install of README's production steps
// renders with exactly its --set values, and the deployment its next
// command waits for is the one the chart makes.
func TestReadmeHelmInstall(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(readme), "\\\n", " ")
	install := regexp.MustCompile(`helm install (\S+) charts/porchbot -n (\S+)([^\n]*)`).FindStringSubmatch(text)
	rollout := regexp.MustCompile(`kubectl -n (\S+) rollout status deployment/(\S+)`).FindStringSubmatch(text)
	if install == nil || rollout == nil {
		t.Fatal("README has no helm install and rollout status commands")
	}
	values := map[string]any{}
	for _, set := range regexp.MustCompile(`--set (\S+)`).FindAllStringSubmatch(install[3], -1) {
		if err := strvals.ParseInto(set[1], values); err != nil {
			t.Fatalf("--set %s: %v", set[1], err)
		}
	}
	m, err := renderRelease(t, install[1], values)
	if err != nil {
		t.Fatalf("README's helm install fails: %v", err)
	}
	if m["Deployment/"+rollout[2]] == nil || rollout[1] != install[2] {
		t.Fatalf("README waits for deployment/%s in %s; the chart makes %v in %s", rollout[2], rollout[1], keys(m), install[2])
	}
}
