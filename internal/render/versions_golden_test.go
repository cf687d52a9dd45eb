package render

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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
		// the cases were recorded under kpt v1.0.0-beta.56
		modes := map[string]Options{"": {Kpt: KptBeta56}}
		if strings.HasPrefix(filepath.ToSlash(rel), "starlark/") {
			// as the server runs it: in the sandbox child, told the release
			modes[" sandboxed"] = Options{Kpt: KptBeta56, Bounds: Bounds{Sandbox: testSandbox(FunctionLimits{})}}
		}
		if rel := filepath.ToSlash(rel); strings.HasPrefix(rel, "upsert-resource/") || strings.HasPrefix(rel, "fix/") ||
			strings.HasPrefix(rel, "export-terraform/") || strings.HasPrefix(rel, "render-helm-chart/v0.1.0-") {
			// a release on kyaml v0.10–v0.11's framework, or on an SDK that
			// writes the items as they are (builtins.Unreconciled), some
			// moving resources by their legacy path: through a ResourceList
			// as well as in memory
			modes[" serialized"] = Options{Kpt: KptBeta56, serialized: true}
		}
		if sd := caseSchemas(t, c); sd != "" {
			// kubeval's schemas: what its image would make from the
			// OpenAPI document it bundles (generate.sh hands them to the
			// release), the server's schema directory for porchbot
			for mode, opts := range modes {
				opts.SchemaDir = filepath.Join(dir, sd)
				modes[mode] = opts
			}
		}
		for mode, opts := range modes {
			t.Run(filepath.ToSlash(rel)+mode, func(t *testing.T) {
				root := filepath.Join(t.TempDir(), "pkg")
				copyDir(t, filepath.Join(dir, "pkg"), root)
				// kpt names the package by its directory; the cases were recorded as "pkg"
				res, err := Render(context.Background(), filesys.MakeFsOnDisk(), root, opts)
				wantCode := readExitCode(t, filepath.Join(dir, "exit-code"))
				if (err != nil) != (wantCode != 0) {
					t.Errorf("exit: got err=%v, want exit code %d", err, wantCode)
				}
				compareTree(t, filepath.Join(dir, "expected"), filesys.MakeFsOnDisk(), root)
				if want, err := os.ReadFile(filepath.Join(dir, "results.yaml")); err == nil {
					compareReleaseResults(t, want, res.Results)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(builtinVersionsDir, "README.md")); err != nil {
		t.Errorf("the cases need their README: %v", err)
	}
}

// caseSchemas is a case's "schemas: <dir>" line: the directory, relative
// to the case, of the schemas the release read.
func caseSchemas(t *testing.T, caseYAML string) string {
	t.Helper()
	b, err := os.ReadFile(caseYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "schemas:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// compareReleaseResults requires the FunctionResultList the release left under kpt
// (a case's results.yaml, where the case has one): each function's stderr,
// exit code and results, the function's image or exec path aside.
func compareReleaseResults(t *testing.T, want []byte, got FunctionResultList) {
	t.Helper()
	gotYAML, err := got.YAML()
	if err != nil {
		t.Fatal(err)
	}
	norm := func(b []byte) any {
		var v map[string]any
		if err := yaml.Unmarshal(b, &v); err != nil {
			t.Fatalf("results: %v\n%s", err, b)
		}
		items, _ := v["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				delete(m, "exec")
				delete(m, "image")
			}
		}
		return v
	}
	if !reflect.DeepEqual(norm(want), norm(gotYAML)) {
		t.Errorf("results differ from the release's:\n--- porchbot ---\n%s\n--- release under kpt ---\n%s", gotYAML, want)
	}
}
