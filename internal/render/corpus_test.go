package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/render/builtins"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// corpusDir holds packages whose Kptfiles run porchbot's built-ins as exec
// functions ("exec: @FN@/<name>", @FN@ being a directory of wrapper scripts
// that run `porchbot fn <name>`).
const corpusDir = "../../testdata/render"

// TestConformanceKptOrchestration renders every corpus package twice: with
// `kpt fn render --allow-exec` (kpt running `porchbot fn <name>` for each
// function) and in process with Render (resolving the same exec entries to
// the same built-ins), and requires identical files, exit codes and result
// messages and severities. Each package is also rendered in process with every
// function forced through a serialized ResourceList, which must agree too.
func TestConformanceKptOrchestration(t *testing.T) {
	kpt, rel := installedKpt(t)
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("corpus missing: %v", err)
	}
	tmp := t.TempDir()
	fnDir := buildFnScripts(t, tmp)
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(corpusDir, name)
			kdir := filepath.Join(tmp, "kpt", name)
			copyCorpusPkg(t, src, kdir, fnDir)
			resDir := filepath.Join(tmp, "results", name)
			if err := os.MkdirAll(resDir, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(kpt, "fn", "render", "--allow-exec", "--results-dir", resDir, kdir)
			cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
			out, kerr := cmd.CombinedOutput()
			var kptCode int
			var ee *exec.ExitError
			switch {
			case kerr == nil:
			case errors.As(kerr, &ee):
				kptCode = ee.ExitCode()
			default:
				t.Fatalf("kpt: %v", kerr)
			}
			kptFiles := treeFiles(t, filesys.MakeFsOnDisk(), kdir)
			kptResults := readKptResults(t, filepath.Join(resDir, "results.yaml"))

			for _, serialized := range []bool{false, true} {
				mode := "in-memory"
				if serialized {
					mode = "serialized"
				}
				t.Run(mode, func(t *testing.T) {
					pdir := filepath.Join(tmp, mode, name)
					copyCorpusPkg(t, src, pdir, fnDir)
					opts := corpusOptions(fnDir, rel)
					opts.serialized = serialized
					res, err := Render(context.Background(), filesys.MakeFsOnDisk(), pdir, opts)
					if (err != nil) != (kptCode != 0) {
						t.Errorf("porchbot err=%v, kpt exit code %d\nkpt output:\n%s", err, kptCode, out)
					}
					compareFileMaps(t, kptFiles, treeFiles(t, filesys.MakeFsOnDisk(), pdir))
					compareResultLists(t, kptResults, res.Results, kdir, pdir)
				})
			}
		})
	}
	if n < 15 {
		t.Errorf("corpus has %d packages, want at least 15", n)
	}
}

// buildFnScripts builds porchbot into dir and writes there, in fns/, one
// script per built-in running `porchbot fn <name>`; it returns that directory.
func buildFnScripts(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "porchbot")
	// static, as make build and the image build it (no libc to load)
	build := exec.Command("go", "build", "-o", bin, "./cmd/porchbot")
	build.Dir = "../.."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/porchbot: %v\n%s", err, out)
	}
	fnDir := filepath.Join(dir, "fns")
	if err := os.MkdirAll(fnDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range builtins.Names() {
		script := fmt.Sprintf("#!/bin/sh\nexec %s fn %s\n", bin, name)
		if err := os.WriteFile(filepath.Join(fnDir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return fnDir
}

// corpusOptions renders exec functions of fnDir in process, as built-ins,
// as kpt release rel does.
func corpusOptions(fnDir string, rel KptRelease) Options {
	opts := Options{AllowExec: true, Resolve: corpusResolver, Kpt: rel}
	for _, b := range builtins.Names() {
		opts.ExecAllowlist = append(opts.ExecAllowlist, filepath.Join(fnDir, b))
	}
	return opts
}

func corpusResolver(fn Function) (framework.ResourceListProcessor, error) {
	if fn.Exec != "" {
		name := filepath.Base(strings.Fields(fn.Exec)[0])
		if s, ok := builtins.Lookup(name); ok {
			return s.New(), nil
		}
	}
	return DefaultResolver(fn)
}

// copyCorpusPkg copies a corpus package, pointing its exec functions at fnDir.
func copyCorpusPkg(t *testing.T, src, dst, fnDir string) {
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
		b = []byte(strings.ReplaceAll(string(b), "@FN@", fnDir))
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readKptResults(t *testing.T, p string) FunctionResultList {
	t.Helper()
	var l FunctionResultList
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("kpt results: %v", err)
	}
	if err := yaml.Unmarshal(b, &l); err != nil {
		t.Fatalf("kpt results: %v", err)
	}
	return l
}

// compareResultLists compares two FunctionResultLists' items, exit codes,
// messages and severities, reading wantDir in want's messages as gotDir.
func compareResultLists(t *testing.T, want, got FunctionResultList, wantDir, gotDir string) {
	t.Helper()
	if got.ExitCode != want.ExitCode {
		t.Errorf("results exitCode = %d, kpt %d", got.ExitCode, want.ExitCode)
	}
	if len(got.Items) != len(want.Items) {
		t.Errorf("%d result items, kpt %d", len(got.Items), len(want.Items))
	}
	for i := 0; i < len(got.Items) && i < len(want.Items); i++ {
		w, g := want.Items[i], got.Items[i]
		if g.Image != w.Image || g.ExecPath != w.ExecPath || g.ExitCode != w.ExitCode {
			t.Errorf("item %d: got %s%s exit %d, kpt %s%s exit %d", i, g.Image, g.ExecPath, g.ExitCode, w.Image, w.ExecPath, w.ExitCode)
		}
		var wm, gm []resultMsg
		for _, r := range w.Results {
			wm = append(wm, resultMsg{strings.ReplaceAll(r.Message, wantDir, gotDir), string(r.Severity)})
		}
		for _, r := range g.Results {
			gm = append(gm, resultMsg{r.Message, string(r.Severity)})
		}
		if !equalMsgs(wm, gm) {
			t.Errorf("item %d (%s): results\n got %v\n kpt %v", i, g.ExecPath, gm, wm)
		}
	}
}
