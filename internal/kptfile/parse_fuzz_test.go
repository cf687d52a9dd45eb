package kptfile

import (
	"errors"
	"testing"

	"github.com/porchbot/porchbot/internal/config/strictyaml"
)

// FuzzParse: any bytes given as a Kptfile parse without panic, and a
// refusal is a *strictyaml.ValidationError whose every problem has a
// message and a line. `go test` runs the seeds; `go test -fuzz FuzzParse`
// explores.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\ninfo:\n  description: x\npipeline:\n  mutators:\n    - image: set-namespace:v0.4\n      configMap:\n        namespace: upf\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\nupstream:\n  type: git\n  git:\n    repo: https://x/y\n    directory: /a\n    ref: v1\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n    repo: https://x/y\n    directory: /a\n    ref: v1\n    commit: abc\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\nstatus:\n  conditions:\n    - type: Ready\n      status: \"True\"\n",
		"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\n",
		"kind: Kptfile\nmetadata: [",
		"a: &a [*a, *a]\nb: *a\n",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\nunknown: 1\n",
		"",
		"---\n---\n",
		"\t- x",
		"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\npipeline:\n  mutators:\n    - exec: \"fn 'open\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err == nil {
			if file == nil {
				t.Fatal("no file and no error")
			}
			return
		}
		var ve *strictyaml.ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) == 0 {
			t.Fatalf("refusal without problems (%T): %v", err, err)
		}
		for _, p := range ve.Problems {
			if p.Message == "" || p.Line < 1 {
				t.Fatalf("problem without a message or a line: %+v (%v)", p, err)
			}
		}
	})
}
