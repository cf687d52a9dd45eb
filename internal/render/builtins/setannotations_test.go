package builtins

import "testing"

func TestSetAnnotations(t *testing.T) {
	multi := `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  annotations:
    owner: 'me' # who
spec:
  template:
    spec: {}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cron
spec:
  schedule: "* * * * *"
`
	runCases(t, "set-annotations", []fnCase{
		{
			name:   "kptfile, templates and quoting",
			config: cm("team", "a", "on", "yes", "n", "12"),
			in:     map[string]string{"Kptfile": testKptfile, "multi.yaml": multi},
			want: map[string]string{
				"Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
    n: "12"
    on: "yes"
    team: a
`,
				"multi.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  annotations:
    owner: 'me' # who
    n: "12"
    on: "yes"
    team: a
spec:
  template:
    spec: {}
    metadata:
      annotations:
        n: "12"
        on: "yes"
        team: a
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cron
  annotations:
    n: "12"
    on: "yes"
    team: a
spec:
  schedule: "* * * * *"
  jobTemplate:
    metadata:
      annotations:
        n: "12"
        on: "yes"
        team: a
    spec:
      template:
        metadata:
          annotations:
            n: "12"
            on: "yes"
            team: a
`,
			},
			results: `set annotations: {"n":"12","on":"yes","team":"a"} [] field=metadata.annotations file=Kptfile
set annotations: {"n":"12","on":"yes","team":"a"} [] field=metadata.annotations file=multi.yaml
set annotations: {"n":"12","on":"yes","team":"a"} [] field=spec.template.metadata.annotations file=multi.yaml
set annotations: {"n":"12","on":"yes","team":"a"} [] field=metadata.annotations file=multi.yaml#1
set annotations: {"n":"12","on":"yes","team":"a"} [] field=spec.jobTemplate.metadata.annotations file=multi.yaml#1
set annotations: {"n":"12","on":"yes","team":"a"} [] field=spec.jobTemplate.spec.template.metadata.annotations file=multi.yaml#1`,
		},
		{
			name: "SetAnnotations with additionalAnnotationFields",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: SetAnnotations
metadata:
  name: a
annotations:
  x: "1"
additionalAnnotationFields:
- path: spec/extra/annotations
  kind: Widget
  create: true
`,
			in: map[string]string{"w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {}\n"},
			want: map[string]string{"w.yaml": `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  annotations:
    x: "1"
spec:
  extra:
    annotations:
      x: "1"
`},
			results: `set annotations: {"x":"1"} [] field=metadata.annotations file=w.yaml
set annotations: {"x":"1"} [] field=spec.extra.annotations file=w.yaml`,
		},
		{
			name:    "empty annotations",
			config:  cm(),
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "failed to configure function: input annotation list cannot be empty [error]",
			wantErr: true,
		},
		{
			name:    "wrong config kind",
			config:  "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: a\n",
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "failed to configure function: `functionConfig` must be a `ConfigMap` or `SetAnnotations` [error]",
			wantErr: true,
		},
	})
}
