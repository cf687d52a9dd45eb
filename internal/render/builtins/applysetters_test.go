package builtins

import "testing"

func TestApplySetters(t *testing.T) {
	in := `apiVersion: v1
kind: ConfigMap
metadata:
  name: c # kpt-set: ${prefix}-c
data:
  image: nginx:1.2 # kpt-set: ${image}:${tag}
  replicas: "1" # kpt-set: ${replicas}
  untouched: x # kpt-set: ${other}
spec:
  envs: # kpt-set: ${envs}
    - dev
  list: # kpt-set: ${list}
    - x
  flow: [x] # kpt-set: ${list}
`
	runCases(t, "apply-setters", []fnCase{
		{
			name:   "scalars, partial patterns and arrays",
			config: cm("image", "ubuntu", "replicas", "3", "list", "[a, b]", "prefix", "dev"),
			in:     map[string]string{"Kptfile": testKptfile, "a.yaml": in},
			want: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: dev-c # kpt-set: ${prefix}-c
data:
  image: ubuntu:1.2 # kpt-set: ${image}:${tag}
  replicas: "3" # kpt-set: ${replicas}
  untouched: x # kpt-set: ${other}
spec:
  envs: # kpt-set: ${envs}
    - dev
  list: # kpt-set: ${list}
    - a
    - b
  flow: # kpt-set: ${list}
    - a
    - b
`},
			results: `set field value to "dev-c" [] field=metadata.name file=a.yaml
set field value to "ubuntu:1.2" [] field=data.image file=a.yaml
set field value to "3" [] field=data.replicas file=a.yaml
set field value to "[a, b]" [] field=spec.list file=a.yaml
set field value to "[a, b]" [] field=spec.flow file=a.yaml`,
		},
		{
			name:   "empty array value",
			config: cm("envs", ""),
			in:     map[string]string{"a.yaml": in},
			want: map[string]string{"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: c # kpt-set: ${prefix}-c
data:
  image: nginx:1.2 # kpt-set: ${image}:${tag}
  replicas: "1" # kpt-set: ${replicas}
  untouched: x # kpt-set: ${other}
spec:
  envs: [] # kpt-set: ${envs}
  list: # kpt-set: ${list}
    - x
  flow: [x] # kpt-set: ${list}
`},
			results: `set field value to "" [] field=spec.envs file=a.yaml`,
		},
		{
			name:    "unresolvable setter",
			config:  cm("tag", "2"),
			in:      map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  image: nginx # kpt-set: ${image}:${tag}\n"},
			results: "failed to apply setters: values for setters [${image}] must be provided [error]",
			wantErr: true,
		},
		{
			name:    "no matches",
			config:  cm("nothing", "x"),
			in:      map[string]string{"a.yaml": in},
			results: "no matches for input setter(s) []",
		},
	})
}
