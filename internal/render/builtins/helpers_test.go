package builtins

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// render runs one built-in over a package made of files (path -> content)
// the way kpt does: read with kpt's package reader settings, run with the
// function config (YAML, may be empty), write back. It returns the files
// afterwards (unchanged when the function failed), the results and the error.
func render(t *testing.T, name string, fnConfig string, files map[string]string) (map[string]string, framework.Results, error) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reader := kio.LocalPackageReader{
		PackagePath:       dir,
		PackageFileName:   "Kptfile",
		MatchFilesGlob:    append(append([]string{}, kio.MatchAll...), "Kptfile"),
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
	}
	items, err := reader.Read()
	if err != nil {
		t.Fatal(err)
	}
	var fc *yaml.RNode
	if strings.TrimSpace(fnConfig) != "" {
		fc = yaml.MustParse(fnConfig)
	}
	spec, ok := Lookup(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	newFn := spec.New
	if strings.Contains(name, ":") { // that release
		r, err := Resolve(name, "")
		if err != nil {
			t.Fatal(err)
		}
		newFn = r.New
	}
	rl := &framework.ResourceList{Items: items, FunctionConfig: fc}
	perr := newFn().Process(rl)
	if perr == nil {
		for p := range files {
			_ = os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
		}
		if err := (kio.LocalPackageWriter{PackagePath: dir}).Write(rl.Items); err != nil {
			t.Fatal(err)
		}
	}
	return readTree(t, dir), rl.Results, perr
}

// cm builds a kpt `configMap:` function config.
func cm(kv ...string) string {
	data := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i]] = kv[i+1]
	}
	s, err := newFunctionInput(data).String()
	if err != nil {
		panic(err)
	}
	return s
}

func resultLines(rs framework.Results) string {
	var out []string
	for _, r := range rs {
		field, file, idx := "", "", 0
		if r.Field != nil {
			field = r.Field.Path
		}
		if r.File != nil {
			file, idx = r.File.Path, r.File.Index
		}
		line := formatResult(r.Message, string(r.Severity), field, file, idx)
		if r.ResourceRef != nil {
			line += fmt.Sprintf(" ref=%s/%s/%s", r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// fnCase is one table test: files in, function config, files and results out.
type fnCase struct {
	name    string
	config  string
	in      map[string]string
	want    map[string]string // files expected to differ from in (others must be unchanged)
	results string
	wantErr bool
}

func runCases(t *testing.T, fn string, cases []fnCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, results, err := render(t, fn, tc.config, tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v\nresults:\n%s", err, tc.wantErr, resultLines(results))
			}
			var names []string
			for p := range tc.in {
				names = append(names, p)
			}
			sort.Strings(names)
			for _, p := range names {
				want, ok := tc.want[p]
				if !ok {
					want = tc.in[p]
				}
				if got[p] != want {
					t.Errorf("%s:\n--- got ---\n%s--- want ---\n%s", p, got[p], want)
				}
			}
			for p := range got {
				if _, ok := tc.in[p]; !ok {
					t.Errorf("unexpected file %s:\n%s", p, got[p])
				}
			}
			if r := resultLines(results); r != strings.TrimSpace(tc.results) {
				t.Errorf("results:\n--- got ---\n%s\n--- want ---\n%s", r, strings.TrimSpace(tc.results))
			}
		})
	}
}
