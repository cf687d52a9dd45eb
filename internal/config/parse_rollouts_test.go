package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseRollouts(t *testing.T) {
	cfg, err := Parse(Path, []byte(`apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
updates:
  rollouts:
    - package: base/upf
      success: merged
      deploymentContexts: ["kustomization/*"]
      waves:
        - {name: canary, repositories: [acme/edge-1, "acme/lab-*"], maxInProgress: 1, soak: 1h}
        - {name: prod, topic: Prod, labels: {env: prod}}
        - {name: rest}
variants:
  - upstream: {package: base/amf}
    targets: {repositories: [acme/edge-1]}
    rollout:
      waves: [{name: first, repositories: [acme/edge-1]}]
`), ServerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := cfg.RolloutOf("base/upf")
	if !ok || r.Success != SuccessMerged || len(r.Waves) != 3 || r.Waves[0].Soak != time.Hour || r.Waves[0].MaxInProgress != 1 ||
		r.Waves[1].Topic != "prod" || r.Waves[1].Labels["env"] != "prod" || len(r.DeploymentContexts) != 1 {
		t.Fatalf("%+v", r)
	}
	v, ok := cfg.RolloutOf("base/amf")
	if !ok || v.Package != "base/amf" || v.Success != SuccessDeployed || len(v.DeploymentContexts) != len(DefaultDeploymentContexts) {
		t.Fatalf("variant's rollout %+v", v)
	}
	if _, ok := cfg.RolloutOf("base/other"); ok || len(cfg.Rollouts()) != 2 {
		t.Fatal("a rollout for a package that has none")
	}
}

func TestParseRolloutsProblems(t *testing.T) {
	for name, c := range map[string]struct{ yaml, want string }{
		"no waves":      {"updates:\n  rollouts:\n    - package: base/upf\n      waves: []\n", "6:14: updates.rollouts[0].waves: a rollout needs at least one wave"},
		"no package":    {"updates:\n  rollouts:\n    - waves: [{name: a}]\n", `updates.rollouts[0]: missing required field "package"`},
		"bad name":      {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: Canary}]\n", `"Canary": lower-case letters`},
		"reserved name": {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: remaining}]\n", `"remaining" names the wave`},
		"twice":         {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: a}, {name: a}]\n", `wave "a" is listed twice`},
		"soak":          {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: a, soak: 3 days}]\n", `"3 days" is not a duration`},
		"long soak":     {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: a, soak: 400h}]\n", "0 to 336h0m0s, got 400h0m0s"},
		"repository":    {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: a, repositories: [edge-1]}]\n", `"edge-1" is not owner/name`},
		"bound":         {"updates:\n  rollouts:\n    - package: p\n      waves: [{name: a, maxInProgress: -1}]\n", "0 (no bound) to 10000, got -1"},
		"success":       {"updates:\n  rollouts:\n    - package: p\n      success: healthy\n      waves: [{name: a}]\n", "updates.rollouts[0].success"},
		"unknown key":   {"updates:\n  rollouts:\n    - package: p\n      wave: [{name: a}]\n", "wave"},
		"same package":  {"updates:\n  rollouts:\n    - {package: p, waves: [{name: a}]}\n    - {package: p, waves: [{name: b}]}\n", `package "p" has a rollout already`},
		"variant and updates": {"updates:\n  rollouts:\n    - {package: base/upf, waves: [{name: a}]}\nvariants:\n  - upstream: {package: base/upf}\n    targets: {repositories: [acme/e]}\n    rollout: {waves: [{name: b}]}\n",
			`package "base/upf" has a rollout already (in updates.rollouts or an earlier variant)`},
	} {
		_, err := Parse(Path, []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"+c.yaml), ServerLimits{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
