package kptfile

import (
	"errors"
	"testing"
)

// FuzzParse: the Kptfile decoder never panics, and every rejection is a
// *ValidationError whose problems name the file and a position in it.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n",
		"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\npipeline:\n  mutators:\n  - image: a\n    exec: b\n    selectors: [{}]\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\ninfo:\n  readinessGates: [{conditionType: a}, {conditionType: a}]\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nstatus:\n  conditions: [{type: Ready, status: \"True\"}]\n  renderStatus: {}\n",
		"a: &x [1]\nb: *x\n",
		"- a\n- b\n",
		"{",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\ninfo:\n  description: x\npipeline:\n  mutators:\n    - image: set-namespace:v0.4\n      configMap:\n        namespace: upf\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\nupstream:\n  type: git\n  git:\n    repo: https://x/y\n    directory: /a\n    ref: v1\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n    repo: https://x/y\n    directory: /a\n    ref: v1\n    commit: abc\n",
		"kind: Kptfile\nmetadata: [",
		"a: &a [*a, *a]\nb: *a\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\nunknown: 1\n",
		"---\n---\n",
		"\t- x",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\npipeline:\n  mutators:\n    - exec: \"fn 'open\"\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile("pkg/Kptfile", data)
		if err == nil {
			if file.Kptfile().APIVersion != APIVersion || file.Kptfile().Kind != Kind {
				t.Fatalf("accepted %q as %s %s", data, file.Kptfile().APIVersion, file.Kptfile().Kind)
			}
			return
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) == 0 {
			t.Fatalf("rejection %T %v is not a *ValidationError with problems", err, err)
		}
		for _, p := range ve.Problems {
			if p.File != "pkg/Kptfile" || p.Message == "" || p.Line < 0 || p.Column < 0 {
				t.Fatalf("problem without file or position: %+v", p)
			}
		}
	})
}
