package render

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// conformanceDir holds kpt catalog cases: pkg/, expected/, expected-results.yaml, exit-code.
// The cases are kept in testdata/conformance/render (see its README);
// PORCHBOT_CONFORMANCE_DIR runs another copy of them instead (CI runs the
// project's shared corpus, which the copy follows).
var conformanceDir = conformanceCorpus("../../testdata/conformance/render")

// TestConformanceCatalog renders every catalog case with the real built-ins
// and requires kpt's files byte for byte, kpt's exit code and the catalog
// functions' result messages and severities.
func TestConformanceCatalog(t *testing.T) {
	cases, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatalf("conformance cases: %v", err)
	}
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(conformanceDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			for _, name := range []string{"disk", "memory", "memfs"} {
				t.Run(name, func(t *testing.T) { runCatalogCase(t, dir, name) })
			}
		})
	}
	if n == 0 {
		t.Fatalf("no conformance cases in %s", conformanceDir)
	}
}

func runCatalogCase(t *testing.T, dir string, fsName string) {
	var fs filesys.FileSystem
	var root string
	if fsName != "disk" {
		fs = filesys.MakeFsInMemory()
		if fsName == "memfs" {
			fs = NewMemFS()
		}
		root = "/pkg"
		copyIntoFS(t, filepath.Join(dir, "pkg"), fs, root)
	} else {
		fs = filesys.MakeFsOnDisk()
		root = filepath.Join(t.TempDir(), "pkg")
		copyDir(t, filepath.Join(dir, "pkg"), root)
	}
	// the corpus was recorded by kpt v1.0.0-beta.56
	res, err := Render(context.Background(), fs, root, Options{Kpt: KptBeta56})
	wantCode := readExitCode(t, filepath.Join(dir, "exit-code"))
	if (err != nil) != (wantCode != 0) {
		t.Errorf("exit: got err=%v, want exit code %d", err, wantCode)
	}
	compareTree(t, filepath.Join(dir, "expected"), fs, root)
	compareResults(t, filepath.Join(dir, "expected-results.yaml"), res)
}

func readExitCode(t *testing.T, p string) int {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyIntoFS(t testing.TB, src string, fs filesys.FileSystem, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return fs.MkdirAll(target)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fs.WriteFile(target, b)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeFiles lists the files under root in fs, relative and slash-separated.
func treeFiles(t testing.TB, fs filesys.FileSystem, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := fs.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		b, err := fs.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareTree(t *testing.T, expectedDir string, fs filesys.FileSystem, root string) {
	t.Helper()
	want := treeFiles(t, filesys.MakeFsOnDisk(), expectedDir)
	got := treeFiles(t, fs, root)
	compareFileMaps(t, want, got)
}

func compareFileMaps(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	var names []string
	for k := range want {
		names = append(names, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		w, wok := want[k]
		g, gok := got[k]
		switch {
		case !gok:
			t.Errorf("missing file %s", k)
		case !wok:
			t.Errorf("unexpected file %s:\n%s", k, g)
		case string(w) != string(g):
			t.Errorf("file %s differs:\n--- want\n%s\n--- got\n%s", k, w, g)
		}
	}
}

type resultMsg struct{ Message, Severity string }

type expectedResultList struct {
	ExitCode int `yaml:"exitCode"`
	Items    []struct {
		Image    string `yaml:"image"`
		Exec     string `yaml:"exec"`
		ExitCode int    `yaml:"exitCode"`
		Results  []struct {
			Message  string `yaml:"message"`
			Severity string `yaml:"severity"`
		} `yaml:"results"`
	} `yaml:"items"`
}

func compareResults(t *testing.T, path string, res *Result) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want expectedResultList
	if err := yaml.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got := res.Results
	if got.ExitCode != want.ExitCode {
		t.Errorf("results exitCode = %d, want %d", got.ExitCode, want.ExitCode)
	}
	if len(got.Items) != len(want.Items) {
		t.Errorf("%d result items, want %d", len(got.Items), len(want.Items))
	}
	for i := 0; i < len(got.Items) && i < len(want.Items); i++ {
		w, g := want.Items[i], got.Items[i]
		if g.ExitCode != w.ExitCode {
			t.Errorf("item %d (%s): exitCode %d, want %d", i, g.Image+g.ExecPath, g.ExitCode, w.ExitCode)
		}
		var wm, gm []resultMsg
		for _, r := range w.Results {
			wm = append(wm, resultMsg{r.Message, r.Severity})
		}
		for _, r := range g.Results {
			gm = append(gm, resultMsg{r.Message, string(r.Severity)})
		}
		if !equalMsgs(wm, gm) {
			t.Errorf("item %d (%s): results\n got %v\nwant %v", i, g.Image+g.ExecPath, gm, wm)
		}
	}
}

func equalMsgs(a, b []resultMsg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// conformanceCorpus is PORCHBOT_CONFORMANCE_DIR when set, else def.
func conformanceCorpus(def string) string {
	if d := os.Getenv("PORCHBOT_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return def
}
