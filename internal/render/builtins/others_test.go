package builtins

import "testing"

func TestApplyReplacements(t *testing.T) {
	res := `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  HOST: db.example.com
  PORT: "5432"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # web
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - name: DB
          value: postgres://placeholder:1/x
        - name: PORT
          value: "0"
`
	runCases(t, "apply-replacements", []fnCase{
		{
			name: "delimiter, index and lists by key",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: r
replacements:
- source:
    kind: ConfigMap
    name: cfg
    fieldPath: data.HOST
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=DB].value
    options:
      delimiter: /
      index: 2
- source:
    kind: ConfigMap
    name: cfg
    fieldPath: data.PORT
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=PORT].value
`,
			in: map[string]string{"res.yaml": res},
			want: map[string]string{"res.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  HOST: db.example.com
  PORT: "5432"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # web
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - name: DB
          value: postgres://db.example.com/x
        - name: PORT
          value: "5432"
`},
		},
		{
			name:    "ConfigMap config is rejected",
			config:  cm("a", "b"),
			in:      map[string]string{"res.yaml": res},
			results: "received functionConfig of kind ConfigMap and apiVersion v1, only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported [error]",
			wantErr: true,
		},
		{
			name: "missing source",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: r
replacements:
- source:
    kind: Secret
    name: nope
  targets:
  - select:
      kind: Deployment
    fieldPaths: [metadata.name]
`,
			in:      map[string]string{"res.yaml": res},
			results: "nothing selected by Secret.[noVer].[noGrp]/nope.[noNs] [error]",
			wantErr: true,
		},
	})
}

func TestEnsureNameSubstring(t *testing.T) {
	res := `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: shop
  annotations:
    config.kubernetes.io/depends-on: /namespaces/shop/ConfigMap/cfg
spec:
  template:
    spec:
      containers:
      - name: c
        envFrom:
        - configMapRef:
            name: cfg # ref
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dev-already
  namespace: shop
`
	runCases(t, "ensure-name-substring", []fnCase{
		{
			name:   "prepend, references and depends-on",
			config: cm("prepend", "dev-"),
			in:     map[string]string{"Kptfile": testKptfile, "res.yaml": res},
			want: map[string]string{"res.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dev-cfg
  namespace: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dev-web # the web tier
  namespace: shop
  annotations:
    config.kubernetes.io/depends-on: /namespaces/shop/ConfigMap/dev-cfg
spec:
  template:
    spec:
      containers:
      - name: c
        envFrom:
        - configMapRef:
            name: dev-cfg # ref
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dev-already
  namespace: shop
`},
		},
		{
			name: "append with EnsureNameSubstring",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: EnsureNameSubstring
metadata:
  name: e
substring: -prod
editMode: append
`,
			in:   map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			want: map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-prod\n"},
		},
		{
			name:    "two entries",
			config:  cm("prepend", "a", "append", "b"),
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			wantErr: true,
		},
	})
}

func TestStarlark(t *testing.T) {
	res := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: "shop"
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: c
        image: nginx # pinned
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  mode: 'prod'
`
	runCases(t, "starlark", []fnCase{
		{
			name: "StarlarkRun with params; order and comments are kept",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: set-replicas
params:
  replicas: 3
source: |
  load("krmfn.star", "krmfn")
  def run(items, replicas):
    for r in items:
      if r["kind"] == "Deployment":
        r["spec"]["replicas"] = replicas
        r["metadata"].setdefault("labels", {})["scaled"] = "true"
      if krmfn.match_gvk(r, "v1", "ConfigMap"):
        r["data"]["extra"] = "x"
  run(ctx.resource_list["items"], ctx.resource_list["functionConfig"]["params"]["replicas"])
`,
			in: map[string]string{"Kptfile": testKptfile, "res.yaml": res},
			// values go through plain YAML data: quoting styles are normalized
			want: map[string]string{"res.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: shop
  labels:
    scaled: "true"
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: c
        image: nginx # pinned
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  mode: prod
  extra: x
`},
		},
		{
			name: "fail",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: check
source: |
  fail("nope")
`,
			in:      map[string]string{"res.yaml": res},
			results: "fail: nope [error]",
			wantErr: true,
		},
		{
			name:    "ConfigMap source, syntax error",
			config:  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prog\ndata:\n  source: 'x = = 1'\n",
			in:      map[string]string{"res.yaml": res},
			results: "prog:1:5: got '=', want primary expression [error]",
			wantErr: true,
		},
		{
			name:    "missing source",
			config:  "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: p\n",
			in:      map[string]string{"res.yaml": res},
			results: "`source` must not be empty [error]",
			wantErr: true,
		},
		{
			// even a program that changes nothing normalizes quoting, as in the catalog
			name:   "no environment leaks",
			config: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prog\ndata:\n  source: |\n    if len(ctx.environment) != 0:\n      fail(\"env\")\n",
			in:     map[string]string{"res.yaml": res},
			want: map[string]string{"res.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: shop
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: c
        image: nginx # pinned
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  mode: prod
`},
		},
	})
}

func TestStarlarkLimits(t *testing.T) {
	in := map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}
	prog := func(src string) string {
		return "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: p\nsource: |\n" + src
	}
	runCases(t, "starlark", []fnCase{
		{
			name:    "recursion is refused",
			config:  prog("  def f(n):\n    return f(n + 1)\n  f(0)\n"),
			in:      in,
			results: "function f called recursively [error]",
			wantErr: true,
		},
		{
			name:    "unknown module",
			config:  prog("  load(\"http.star\", \"http\")\n"),
			in:      in,
			results: "cannot load http.star: module \"http.star\" is not available in porchbot's starlark (available: json.star, krmfn.star, math.star, time.star) [error]",
			wantErr: true,
		},
	})
}
