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
