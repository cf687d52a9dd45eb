package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/update"
)

const updateCases = "../../testdata/conformance/update"

// copyCase copies a conformance case's origin, updated and local into a
// temporary directory and returns their paths.
func copyCase(t *testing.T, name string) (o, u, l string) {
	t.Helper()
	tmp := t.TempDir()
	for _, side := range []string{"origin", "updated", "local"} {
		src := filepath.Join(updateCases, name, side)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			dst := filepath.Join(tmp, side, rel)
			if d.IsDir() {
				return os.MkdirAll(dst, 0o755)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(tmp, "origin"), filepath.Join(tmp, "updated"), filepath.Join(tmp, "local")
}

// snapshot reads a directory's files.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

func TestMerge3WritesKptsResultAndPrintsConflicts(t *testing.T) {
	o, u, l := copyCase(t, "conflict-same-field")
	code, out, errOut := runMain("merge3", "--origin", o, "--updated", u, "--local", l)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, want := snapshot(t, l), snapshot(t, filepath.Join(updateCases, "conflict-same-field", "expected"))
	for p, w := range want {
		if p == "Kptfile" {
			continue // merge3 is given no new revision: the upstream stays at v1
		}
		if got[p] != w {
			t.Errorf("%s:\n%s\nwant (kpt's):\n%s", p, got[p], w)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "FILE") ||
		!strings.Contains(lines[1], "spec.template.spec.containers[name=web].image") || !strings.Contains(lines[1], "nginx:1.26-local") {
		t.Errorf("table:\n%s", out)
	}
	if !strings.Contains(errOut, "1 conflict(s)") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestMerge3JSONAndOnConflictLocal(t *testing.T) {
	o, u, l := copyCase(t, "conflict-same-field")
	code, out, errOut := runMain("merge3", "--origin", o, "--updated", u, "--local", l, "--on-conflict", "local", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var cs []update.Conflict
	if err := json.Unmarshal([]byte(out), &cs); err != nil || len(cs) != 1 || cs[0].Taken != "local" || cs[0].Upstream != "nginx:1.27" {
		t.Fatalf("json %q: %+v, %v", out, cs, err)
	}
	if dep := snapshot(t, l)["deployment.yaml"]; !strings.Contains(dep, "nginx:1.26-local") {
		t.Errorf("local value not kept:\n%s", dep)
	}
}

func TestMerge3OnConflictFailWritesNothing(t *testing.T) {
	o, u, l := copyCase(t, "conflict-same-field")
	before := snapshot(t, l)
	code, out, errOut := runMain("merge3", "--origin", o, "--updated", u, "--local", l, "--on-conflict", "fail")
	if code != 1 || !strings.Contains(errOut, "conflicting changes") || !strings.Contains(out, "nginx:1.26-local") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if d := snapshot(t, l); !equalMaps(d, before) {
		t.Error("local changed although the merge failed")
	}
}

func TestMerge3RemovesWhatUpstreamRemoved(t *testing.T) {
	o, u, l := copyCase(t, "upstream-deletes-untouched")
	if code, _, errOut := runMain("merge3", "--origin", o, "--updated", u, "--local", l); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(l, "configmap.yaml")); !os.IsNotExist(err) {
		t.Errorf("configmap.yaml still there: %v", err)
	}
}

func TestMerge3BadInputChangesNothing(t *testing.T) {
	for name, c := range map[string]struct {
		break_ func(o, u, l string)
		want   func(o, u, l string) string
	}{
		"yaml": {func(o, u, l string) {
			os.WriteFile(filepath.Join(u, "deployment.yaml"), []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: [web\n"), 0o644)
		}, func(o, u, l string) string { return filepath.ToSlash(u) + "/deployment.yaml: " }},
		"kptfile": {func(o, u, l string) {
			os.WriteFile(filepath.Join(l, "Kptfile"), []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: svn\n"), 0o644)
		}, func(o, u, l string) string { return filepath.ToSlash(l) + "/Kptfile:6" }},
		"not a package": {func(o, u, l string) { os.Remove(filepath.Join(l, "Kptfile")) },
			func(o, u, l string) string { return l + ": not a kpt package" }},
		"missing dir": {func(o, u, l string) { os.RemoveAll(o) }, func(o, u, l string) string { return o }},
		"symlink": {func(o, u, l string) { os.Symlink("/etc/passwd", filepath.Join(l, "x.yaml")) },
			func(o, u, l string) string { return "not a regular file" }},
	} {
		t.Run(name, func(t *testing.T) {
			o, u, l := copyCase(t, "image-bump-local-replicas")
			c.break_(o, u, l)
			before := snapshot(t, l)
			code, _, errOut := runMain("merge3", "--origin", o, "--updated", u, "--local", l)
			if code != 1 || !strings.Contains(errOut, c.want(o, u, l)) {
				t.Fatalf("exit %d, stderr %q; want it to name %q", code, errOut, c.want(o, u, l))
			}
			if !equalMaps(snapshot(t, l), before) {
				t.Error("local changed by a failed merge")
			}
		})
	}
}

func TestMerge3Usage(t *testing.T) {
	if code, _, errOut := runMain("merge3", "--origin", "x"); code != 1 || !strings.Contains(errOut, "required") {
		t.Errorf("missing flags: exit %d %q", code, errOut)
	}
	if code, _, errOut := runMain("merge3", "--origin", "a", "--updated", "b", "--local", "c", "-o", "yaml"); code != 1 || !strings.Contains(errOut, "table or json") {
		t.Errorf("bad -o: exit %d %q", code, errOut)
	}
	if code, out, _ := runMain("merge3", "--help"); code != 0 || !strings.Contains(out, "--on-conflict") {
		t.Errorf("help: exit %d %q", code, out)
	}
	if _, out, _ := runMain("help"); !strings.Contains(out, "merge3") {
		t.Errorf("merge3 not in the usage:\n%s", out)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
