package builtins

import "testing"

const testKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/local-config: "true"
`

func TestSetNamespace(t *testing.T) {
	resources := `apiVersion: v1
kind: Namespace
metadata:
  name: old
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: "old"
  annotations:
    config.kubernetes.io/depends-on: /namespaces/old/ConfigMap/cfg
spec:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: old
data:
  a: 'quoted'
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: crb
subjects:
- kind: ServiceAccount
  name: sa
  namespace: old
- kind: User
  name: u
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cr
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: cluster-widget
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: ns-widget
  namespace: old
`
	renamed := `apiVersion: v1
kind: Namespace
metadata:
  name: new
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  namespace: new
  annotations:
    config.kubernetes.io/depends-on: /namespaces/new/ConfigMap/cfg
spec:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: new
data:
  a: 'quoted'
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: crb
subjects:
- kind: ServiceAccount
  name: sa
  namespace: new
- kind: User
  name: u
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cr
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: cluster-widget
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: ns-widget
  namespace: new
`
	warnings := `Resource(apiVersion=v1, kind=Namespace, namespace=, name=old) does not have upstream origin. [warning]
Resource(apiVersion=apps/v1, kind=Deployment, namespace=old, name=web) does not have upstream origin. [warning]
Resource(apiVersion=v1, kind=ConfigMap, namespace=old, name=cfg) does not have upstream origin. [warning]
Resource(apiVersion=rbac.authorization.k8s.io/v1, kind=ClusterRoleBinding, namespace=, name=crb) does not have upstream origin. [warning]
Resource(apiVersion=rbac.authorization.k8s.io/v1, kind=ClusterRole, namespace=, name=cr) does not have upstream origin. [warning]
Resource(apiVersion=example.com/v1, kind=Widget, namespace=, name=cluster-widget) does not have upstream origin. [warning]
Resource(apiVersion=example.com/v1, kind=Widget, namespace=old, name=ns-widget) does not have upstream origin. [warning]
`
	runCases(t, "set-namespace", []fnCase{
		{
			name:   "replace all namespaces",
			config: cm("namespace", "new"),
			in:     map[string]string{"Kptfile": testKptfile, "res.yaml": resources},
			want:   map[string]string{"res.yaml": renamed},
			results: warnings + `namespace [old] updated to "new", 5 value(s) changed [info]
` + "`depends-on` annotation namespace [old] updated to \"new\", 1 value(s) changed [info]",
		},
		{
			name: "SetNamespace config and namespaceMatcher",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: SetNamespace
metadata:
  name: ns
namespace: new
`,
			in: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: one
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
`},
			want: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: new
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: new
`},
			results: `Resource(apiVersion=v1, kind=ConfigMap, namespace=one, name=a) does not have upstream origin. [warning]
Resource(apiVersion=v1, kind=ConfigMap, namespace=, name=b) does not have upstream origin. [warning]
namespace [default one] updated to "new", 2 value(s) changed [info]
` + "all `depends-on` annotations are up-to-date. no `namespace` changed [info]",
		},
		{
			name:   "namespaceMatcher only changes the matching namespace",
			config: cm("namespace", "new", "namespaceMatcher", "one"),
			in: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: one
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: two
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
`},
			// c gets "default": the catalog writes back the defaulted value
			want: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: new
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: two
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: default
`},
			results: `Resource(apiVersion=v1, kind=ConfigMap, namespace=one, name=a) does not have upstream origin. [warning]
Resource(apiVersion=v1, kind=ConfigMap, namespace=two, name=b) does not have upstream origin. [warning]
Resource(apiVersion=v1, kind=ConfigMap, namespace=, name=c) does not have upstream origin. [warning]
[Resource(apiVersion=v1, kind=ConfigMap, namespace=one, name=a)] has matching origin one [info]
namespace [one] updated to "new", 1 value(s) changed [info]
` + "all `depends-on` annotations are up-to-date. no `namespace` changed [info]",
		},
		{
			name:   "conflicting upstream origins",
			config: cm("namespace", "new"),
			in: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: one
  annotations:
    internal.kpt.dev/upstream-identifier: '|ConfigMap|one|a'
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: two
  annotations:
    internal.kpt.dev/upstream-identifier: '|ConfigMap|two|b'
`},
			results: "unable to use origin `namespace` to match. expect a single upstream namespace, found [one two]. please switch to use `namespaceMatcher`to specify the namespace value you want to change [error]",
		},
		{
			name:   "already in the namespace",
			config: cm("namespace", "demo"),
			in: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: demo # keep
`},
			results: `Resource(apiVersion=v1, kind=ConfigMap, namespace=demo, name=a) does not have upstream origin. [warning]
all matching namespaces are already "demo". no value changed [info]
` + "all `depends-on` annotations are up-to-date. no `namespace` changed [info]",
		},
		{
			name:   "missing namespace in config is an error result, exit 0",
			config: cm("namespaceX", "demo"),
			in:     map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			// the SDK's config object result: index -1 when there is no index annotation
			results: "`data.namespace` should not be empty [error] file=#-1 ref=ConfigMap//function-input",
		},
		{
			name:    "no config",
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			results: "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev` [error] file=#-1 ref=//",
		},
		{
			name:   "kptfile.kpt.dev ConfigMap uses data.name",
			config: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: from-pkg\n",
			in:     map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"},
			want:   map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: from-pkg\n"},
			results: `Resource(apiVersion=v1, kind=ConfigMap, namespace=, name=a) does not have upstream origin. [warning]
namespace [default] updated to "from-pkg", 1 value(s) changed [info]
` + "all `depends-on` annotations are up-to-date. no `namespace` changed [info]",
		},
	})
}
