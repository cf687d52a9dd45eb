package builtins

import "testing"

func TestSearchReplace(t *testing.T) {
	dep := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25 # pinned
        - name: side
          image: busybox:1.36
      hosts:
        - a
        - b
`
	runCases(t, "search-replace", []fnCase{
		{
			name:   "by-value-regex with capture groups, put-value and put-comment",
			config: cm("by-value-regex", "nginx:(.*)", "put-value", "ubuntu:${1}", "put-comment", "kpt-set: ${tag}"),
			in:     map[string]string{"d.yaml": dep},
			want: map[string]string{"d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
spec:
  template:
    spec:
      containers:
        - name: web
          image: ubuntu:1.25 # kpt-set: ${tag}
        - name: side
          image: busybox:1.36
      hosts:
        - a
        - b
`},
			results: `Mutated field value to "ubuntu:1.25 # kpt-set: ${tag}" [] field=spec.template.spec.containers[0].image file=d.yaml`,
		},
		{
			name:   "by-path with wildcards, matching only",
			config: cm("by-path", "spec.**.containers[*].image"),
			in:     map[string]string{"d.yaml": dep},
			// as in the catalog, the reported value is the YAML of the field, line comment included
			results: `Matched field value "nginx:1.25 # pinned" [] field=spec.template.spec.containers[0].image file=d.yaml
Matched field value "busybox:1.36" [] field=spec.template.spec.containers[1].image file=d.yaml`,
		},
		{
			name:   "put-comment on a list",
			config: cm("by-path", "**.hosts", "put-comment", "kpt-set: ${hosts}"),
			in:     map[string]string{"d.yaml": dep},
			want: map[string]string{"d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25 # pinned
        - name: side
          image: busybox:1.36
      hosts: # kpt-set: ${hosts}
        - a
        - b
`},
			results: `Mutated field value to "[a, b]" [] field=**.hosts # kpt-set: ${hosts} file=d.yaml`,
		},
		{
			name:   "put-value by absolute path creates the field, filtered by file",
			config: cm("by-path", "metadata.labels.env", "put-value", "prod", "by-file-path", "**/d.yaml"),
			in:     map[string]string{"Kptfile": testKptfile, "d.yaml": dep, "sub/d.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"},
			want: map[string]string{
				"d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  labels:
    env: prod
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25 # pinned
        - name: side
          image: busybox:1.36
      hosts:
        - a
        - b
`,
				"sub/d.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    env: prod\n",
			},
			results: `Mutated field value to "prod" [] field=metadata.labels.env file=d.yaml
Mutated field value to "prod" [] field=metadata.labels.env file=sub/d.yaml`,
		},
		{
			// the catalog function writes an untagged plain scalar: a number
			// or a boolean is one when read back, not a quoted string
			name:    "put-value by absolute path writes numbers and booleans plain",
			config:  cm("by-path", "spec.replicas", "put-value", "3", "by-file-path", "c.yaml"),
			in:      map[string]string{"Kptfile": testKptfile, "c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"},
			want:    map[string]string{"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nspec:\n  replicas: 3\n"},
			results: `Mutated field value to "3" [] field=spec.replicas file=c.yaml`,
		},
		{
			name:    "put-value by absolute path: a boolean",
			config:  cm("by-path", "spec.paused", "put-value", "true", "by-file-path", "c.yaml"),
			in:      map[string]string{"Kptfile": testKptfile, "c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"},
			want:    map[string]string{"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nspec:\n  paused: true\n"},
			results: `Mutated field value to "true" [] field=spec.paused file=c.yaml`,
		},
		{
			name:   "by-value and by-path",
			config: cm("by-value", "web", "by-path", "metadata.name", "put-value", "api"),
			in:     map[string]string{"d.yaml": dep},
			want: map[string]string{"d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api # the web tier
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25 # pinned
        - name: side
          image: busybox:1.36
      hosts:
        - a
        - b
`},
			results: `Mutated field value to "api # the web tier" [] field=metadata.name file=d.yaml`,
		},
		{
			name:    "no matches",
			config:  cm("by-value", "nothing"),
			in:      map[string]string{"d.yaml": dep},
			results: "no matches []",
		},
		{
			name:    "invalid matcher",
			config:  cm("by-schema-path", "x"),
			in:      map[string]string{"d.yaml": dep},
			results: `failed to perform search-replace operation: "invalid matcher \"by-schema-path\", must be one of [\"by-value\" \"by-file-path\" \"by-value-regex\" \"by-path\" \"put-value\" \"put-comment\"]" [error]`,
			wantErr: true,
		},
		{
			name:    "by-value and by-value-regex",
			config:  cm("by-value", "a", "by-value-regex", "b"),
			in:      map[string]string{"d.yaml": dep},
			results: `failed to perform search-replace operation: "only one of [\"by-value\", \"by-value-regex\"] can be provided" [error]`,
			wantErr: true,
		},
	})
}

func TestDoublestarMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"**/d.yaml", "d.yaml", true},
		{"**/d.yaml", "a/b/d.yaml", true},
		{"*.yaml", "a/d.yaml", false},
		{"a/*.yaml", "a/d.yaml", true},
		{"a/**", "a/b/c.yaml", true},
		{"{a,b}/*.yaml", "b/x.yaml", true},
		{"Kptfile", "Kptfile", true},
	} {
		if got, err := doublestarMatch(tc.pattern, tc.name); err != nil || got != tc.want {
			t.Errorf("doublestarMatch(%q, %q) = %v, %v", tc.pattern, tc.name, got, err)
		}
	}
}
