package render

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// namesPkg has the names kyaml's in-memory file system refuses: a
// non-ASCII package directory and a file name with "+" and a space.
var namesPkg = map[string]string{
	"Kptfile":               kptfile("root", "pipeline:\n  mutators:\n    - image: set-labels:v0.2.1\n      configMap:\n        tier: web\n"),
	"extra+dev.yaml":        cm("extra"),
	"a file.yaml":           cm("spaced"),
	"café/Kptfile":          kptfile("café", "pipeline:\n  mutators:\n    - image: set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n"),
	"café/données (1).yaml": cm("donnees"),
}

// TestMemFSHoldsEveryGitName renders a package whose names kyaml's
// in-memory file system refuses, on NewMemFS and on disk, and requires the
// same files byte for byte.
func TestMemFSHoldsEveryGitName(t *testing.T) {
	mem := NewMemFS()
	for p, c := range namesPkg {
		if err := mem.WriteFile(filepath.Join("/pkg", p), []byte(c)); err != nil {
			t.Fatalf("memfs write %s: %v", p, err)
		}
	}
	res, err := Render(context.Background(), mem, "/pkg", Options{})
	if err != nil {
		t.Fatalf("render on NewMemFS: %v", err)
	}
	if res.Packages != 2 {
		t.Errorf("packages %d, want 2", res.Packages)
	}

	disk := filepath.Join(t.TempDir(), "pkg")
	for p, c := range namesPkg {
		abs := filepath.Join(disk, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Render(context.Background(), filesys.MakeFsOnDisk(), disk, Options{}); err != nil {
		t.Fatalf("render on disk: %v", err)
	}
	got, want := treeFiles(t, mem, "/pkg"), treeFiles(t, filesys.MakeFsOnDisk(), disk)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("memfs and disk differ:\n%v\n%v", got, want)
	}
	if b := got["café/données (1).yaml"]; !strings.Contains(string(b), "namespace: prod") || !strings.Contains(string(b), "tier: web") {
		t.Errorf("subpackage file not rendered:\n%s", b)
	}
}

func TestMemFSWalkAndRemove(t *testing.T) {
	m := NewMemFS()
	for _, p := range []string{"/a/b/x.yaml", "/a/b/y.yaml", "/a/c+d/z.yaml", "/a/é.yaml"} {
		if err := m.WriteFile(p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	err := m.Walk("/a", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		if p == "/a/b/x.yaml" {
			return filepath.SkipDir // on a file: skip the rest of /a/b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/a", "/a/b", "/a/b/x.yaml", "/a/c+d", "/a/c+d/z.yaml", "/a/é.yaml"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("walk %v, want %v", seen, want)
	}
	if err := m.RemoveAll("/a/b"); err != nil {
		t.Fatal(err)
	}
	if m.Exists("/a/b/y.yaml") || m.IsDir("/a/b") || !m.Exists("/a/é.yaml") {
		t.Error("RemoveAll removed the wrong things")
	}
	if names, _ := m.ReadDir("/a"); !reflect.DeepEqual(names, []string{"c+d", "é.yaml"}) {
		t.Errorf("ReadDir %v", names)
	}
	if err := m.WriteFile("/a/é.yaml/sub", nil); err == nil {
		t.Error("a file under a file")
	}
}
