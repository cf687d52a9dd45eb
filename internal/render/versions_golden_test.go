package render

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// builtinVersionsDir holds golden cases recorded from the catalog's release
// binaries, one per behaviour that differs between releases
// (testdata/builtin-versions/README.md says how to regenerate them).
const builtinVersionsDir = "../../testdata/builtin-versions"

// TestBuiltinVersionsGolden renders every case's package with porchbot and
// requires the files the catalog release left under kpt, byte for byte, and
// its exit code.
func TestBuiltinVersionsGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(builtinVersionsDir, "*", "*", "case.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", builtinVersionsDir)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		rel, _ := filepath.Rel(builtinVersionsDir, dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "pkg")
			copyDir(t, filepath.Join(dir, "pkg"), root)
			// kpt names the package by its directory; the cases were recorded as "pkg"
			_, err := Render(context.Background(), filesys.MakeFsOnDisk(), root, Options{})
			wantCode := readExitCode(t, filepath.Join(dir, "exit-code"))
			if (err != nil) != (wantCode != 0) {
				t.Errorf("exit: got err=%v, want exit code %d", err, wantCode)
			}
			compareTree(t, filepath.Join(dir, "expected"), filesys.MakeFsOnDisk(), root)
		})
	}
	if _, err := os.Stat(filepath.Join(builtinVersionsDir, "README.md")); err != nil {
		t.Errorf("the cases need their README: %v", err)
	}
}
