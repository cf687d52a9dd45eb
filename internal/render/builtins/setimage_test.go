package builtins

import "testing"

func TestSetImage(t *testing.T) {
	pods := `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  initContainers:
  - name: init
    image: nginx:1.0
  containers:
  - name: a
    image: nginx:1.25 # pinned
  - name: b
    image: docker.io/library/nginx:1.25
  - name: c
    image: nginx@sha256:abc
  - name: d
    image: nginx-extra:1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    spec:
      containers:
      - name: a
        image: nginx
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      containers:
      - name: a
        image: nginx:1.25
`
	runCases(t, "set-image", []fnCase{
		{
			name:   "newName keeps tag and digest",
			config: cm("name", "nginx", "newName", "registry.local:5000/nginx"),
			in:     map[string]string{"p.yaml": pods},
			want: map[string]string{"p.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  initContainers:
  - name: init
    image: nginx:1.0
  containers:
  - name: a
    image: registry.local:5000/nginx:1.25 # pinned
  - name: b
    image: docker.io/library/nginx:1.25
  - name: c
    image: registry.local:5000/nginx@sha256:abc
  - name: d
    image: nginx-extra:1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    spec:
      containers:
      - name: a
        image: registry.local:5000/nginx
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      containers:
      - name: a
        image: nginx:1.25
`},
			results: "summary: updated a total of 3 image(s) [info]",
		},
		{
			name:    "digest replaces tag",
			config:  cm("name", "nginx", "digest", "sha256:def"),
			in:      map[string]string{"p.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx:1.25\n"},
			want:    map[string]string{"p.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: nginx@sha256:def\n"},
			results: "summary: updated a total of 1 image(s) [info]",
		},
		{
			name: "SetImage with additionalImageFields",
			config: `apiVersion: fn.kpt.dev/v1alpha1
kind: SetImage
metadata:
  name: si
image:
  name: nginx
  newTag: "2.0"
additionalImageFields:
- path: spec/initContainers[]/image
  kind: Pod
`,
			in: map[string]string{"p.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p # pod\nspec:\n  initContainers:\n  - name: init\n    image: nginx:1.0\n  containers:\n  - name: a\n    image: nginx:1.25\n"},
			want: map[string]string{"p.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: p # pod
spec:
  initContainers:
  - name: init
    image: nginx:2.0
  containers:
  - name: a
    image: nginx:2.0
`},
			results: "summary: updated a total of 2 image(s) [info]",
		},
		{
			name:    "missing name",
			config:  cm("newTag", "1"),
			in:      map[string]string{"p.yaml": pods},
			results: "must specify `name` [error]",
			wantErr: true,
		},
		{
			name:    "unknown ConfigMap key",
			config:  cm("name", "nginx", "tag", "1"),
			in:      map[string]string{"p.yaml": pods},
			results: "ConfigMap has wrong field name tag [error]",
			wantErr: true,
		},
		{
			name:    "nothing to set",
			config:  cm("name", "nginx"),
			in:      map[string]string{"p.yaml": pods},
			results: "must specify one of `newName`, `newTag`, or `digest` [error]",
			wantErr: true,
		},
	})
}

func TestSplitImage(t *testing.T) {
	for image, want := range map[string][3]string{
		"nginx":                       {"nginx", "", ""},
		"nginx:1.25":                  {"nginx", ":1.25", ""},
		"nginx@sha256:abc":            {"nginx", "", "@sha256:abc"},
		"nginx:1.25@sha256:abc":       {"nginx", ":1.25", "@sha256:abc"},
		"localhost:5000/nginx":        {"localhost:5000/nginx", "", ""},
		"localhost:5000/nginx:1.2":    {"localhost:5000/nginx", ":1.2", ""},
		"gcr.io/a/b@sha256:abc":       {"gcr.io/a/b", "", "@sha256:abc"},
		"gcr.io/a/b:v1@sha256:abc123": {"gcr.io/a/b", ":v1", "@sha256:abc123"},
	} {
		n, tg, d := splitImage(image)
		if [3]string{n, tg, d} != want {
			t.Errorf("splitImage(%q) = %q %q %q, want %q", image, n, tg, d, want)
		}
	}
}
