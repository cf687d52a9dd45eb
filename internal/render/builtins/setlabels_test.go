package builtins

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestSetLabels(t *testing.T) {
	workloads := `apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
  labels:
    app: web # mine
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: batch/v1
kind: Job
metadata:
  name: job
spec:
  template:
    metadata: {}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cron
spec:
  jobTemplate:
    spec:
      template:
        spec: {}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np
spec:
  podSelector:
    matchLabels:
      role: db
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: fe
    - ipBlock:
        cidr: 10.0.0.0/8
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: sts
spec:
  volumeClaimTemplates:
  - metadata:
      name: data
`
	labeled := `apiVersion: v1
kind: Service
metadata:
  name: svc
  labels:
    app: web
    tier: "true"
spec:
  ports:
  - port: 80
  selector:
    app: web
    tier: "true"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
  labels:
    app: web # mine
    tier: "true"
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx
    metadata:
      labels:
        app: web
        tier: "true"
  selector:
    matchLabels:
      app: web
      tier: "true"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: job
  labels:
    app: web
    tier: "true"
spec:
  template:
    metadata: {labels: {app: web, tier: "true"}}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cron
  labels:
    app: web
    tier: "true"
spec:
  jobTemplate:
    spec:
      template:
        spec: {}
        metadata:
          labels:
            app: web
            tier: "true"
    metadata:
      labels:
        app: web
        tier: "true"
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np
  labels:
    app: web
    tier: "true"
spec:
  podSelector:
    matchLabels:
      role: db
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: fe
    - ipBlock:
        cidr: 10.0.0.0/8
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: sts
  labels:
    app: web
    tier: "true"
spec:
  volumeClaimTemplates:
  - metadata:
      name: data
      labels:
        app: web
        tier: "true"
  selector:
    matchLabels:
      app: web
      tier: "true"
`
	runCases(t, "set-labels", []fnCase{
		{
			// Every label counts at every path visited, created or not:
			// svc 2x2, dep 3x2, job 3x2 (selector not created), cron 4x2,
			// np 4x2 (podSelector, both ingress peers), sts 4x2 (volume
			// selector not created). A flow-style map stays flow style.
			name:    "workload kinds",
			config:  cm("tier", "true", "app", "web"),
			in:      map[string]string{"Kptfile": testKptfile, "w.yaml": workloads},
			want:    map[string]string{"w.yaml": labeled},
			results: "set 40 labels in total [info]",
		},
		{
			name: "SetLabels config",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: SetLabels
metadata:
  name: l
labels:
  color: blue
`,
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    color: blue\n"},
			results: "set 1 labels in total [info]",
		},
		{
			name:    "no config fails",
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "`FunctionConfig` is not given [info]",
			wantErr: true,
		},
		{
			name:    "only local config resources",
			config:  cm("a", "b"),
			in:      map[string]string{"Kptfile": testKptfile},
			results: "no input resources [info]",
		},
		{
			name:    "SetLabels without labels",
			config:  "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: l\n",
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "no `labels` arguments are given in FunctionConfig [warning]",
		},
		{
			name:    "unknown config kind",
			config:  "apiVersion: example.com/v1\nkind: Other\nmetadata:\n  name: o\n",
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "unknown FunctionConfig `Other.example.com`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1` [error]",
			wantErr: true,
		},
	})
}

// TestSetLabelsConfigKindInEachReleasesWords: a function config of
// neither kind is refused in each release's own words.
func TestSetLabelsConfigKindInEachReleasesWords(t *testing.T) {
	for version, want := range map[string]string{
		"v0.1.4": "function config must be a ConfigMap or SetLabelConfig",
		"v0.1.5": "`functionConfig` must be either a `ConfigMap` or `SetLabels`",
	} {
		r, err := Resolve("gcr.io/kpt-fn/set-labels:"+version, "")
		if err != nil {
			t.Fatal(err)
		}
		rl := &framework.ResourceList{FunctionConfig: yaml.MustParse("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")}
		if err := r.New().Process(rl); err == nil || !strings.Contains(err.Error()+resultLines(rl.Results), want) {
			t.Errorf("%s: %v %s; want %q", version, err, resultLines(rl.Results), want)
		}
	}
}
