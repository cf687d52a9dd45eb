package render

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// readCases are packages whose files stress the reader: separators with
// comments and without a final newline, empty documents, CRLF line ends,
// comments before a document, a kept final line break, legacy-only and internal-only reader
// annotations (copied to the other format), reader annotations already
// there, wide and compact sequences, flow style, anchors and aliases, a
// .krmignore, a subpackage, JSON; and what the direct path leaves to
// kyaml's reader: a bare sequence, an invalid separator, invalid YAML.
var readCases = map[string]map[string]string{
	"stress": {
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: stress\n",
		"a.yaml": "# head comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---   # only a comment\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    config.kubernetes.io/path: elsewhere.yaml\n" +
			"    config.kubernetes.io/index: '7'\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" +
			"  annotations:\n    internal.config.kubernetes.io/path: x.yaml\n    team: a\n---\n",
		"crlf.yaml": "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\ndata:\r\n  k: |\r\n    line\r\n",
		"seq.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n" +
			"      containers:\n        - name: a\n          args: [x, y]\n---\napiVersion: v1\nkind: List\nitems:\n- a: &x 1\n  b: *x\n",
		"flow.yaml":     "{apiVersion: v1, kind: ConfigMap, metadata: {name: f, annotations: {}}}",
		"keep.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k\ndata:\n  k: |+\n    kept\n",
		"meta-none.yml": "apiVersion: v1\nkind: Thing\nspec: 1\n",
		"data.json":     `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}`,
		"ignored.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n",
		".krmignore":    "ignored.yaml\n",
		"notes.txt":     "not read\n",
		"sub/Kptfile":   "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
		"sub/s.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n",
		"dir/deep.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations: ~\n",
	},
	"bare-sequence":     {"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n", "s.yaml": "- a\n- b\n"},
	"invalid-separator": {"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n", "s.yaml": "a: 1\n--- b\nc: 2\n"},
	"invalid-yaml":      {"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n", "s.yaml": "a: [1\n"},
}

// TestReadAsKyaml reads every package of the test corpora and of
// readCases both ways: the direct reader must give what kyaml's
// LocalPackageReader gives (the bytes with every annotation, and each
// node's tag, style, position and sharing) or leave the package to it, and
// must read every corpus package itself.
func TestReadAsKyaml(t *testing.T) {
	disk := filesys.MakeFsOnDisk()
	var dirs []string
	for _, root := range []string{"../../testdata/render", "../../testdata/conformance/render", "../../testdata/builtin-versions"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == KptfileName {
				dirs = append(dirs, filepath.Dir(p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dirs) < 50 {
		t.Fatalf("found %d packages in the corpora", len(dirs))
	}
	tmp := t.TempDir()
	for name, files := range readCases {
		for f, data := range files {
			p := filepath.Join(tmp, name, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, filepath.Join(tmp, name))
		if _, ok := files["sub/Kptfile"]; ok {
			dirs = append(dirs, filepath.Join(tmp, name, "sub"))
		}
	}
	direct := 0
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		r := newRenderer(context.Background(), disk, Options{}, &Result{}, abs)
		pkg := &pkgNode{abs: abs, rel: "."}
		want, wantErr := r.packageReader(pkg).Read()
		got, err := r.readPackageDirect(pkg)
		if err == errReadWithKyaml {
			if !strings.HasPrefix(dir, tmp) {
				t.Errorf("%s: left to kyaml's reader", dir)
			}
			got, err = r.readPackage(pkg)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s: error %v, kyaml's %v", dir, err, wantErr)
			}
			if base := filepath.Base(dir); base == "stress" || base == "sub" {
				t.Errorf("%s: the direct reader refused it", dir)
			}
		} else if err != nil || wantErr != nil {
			t.Errorf("%s: error %v, kyaml's %v", dir, err, wantErr)
			continue
		} else {
			direct++
		}
		if g, w := dumpResources(t, got), dumpResources(t, want); g != w {
			t.Errorf("%s:\n--- direct ---\n%s\n--- kyaml ---\n%s", dir, g, w)
		}
	}
	t.Logf("read %d packages directly, %d left to kyaml's reader", direct, len(dirs)-direct)
}

// dumpResources writes resources with every annotation, and under each
// the nodes with what the bytes do not show.
func dumpResources(t *testing.T, nodes []*yaml.RNode) string {
	t.Helper()
	var b strings.Builder
	if err := (kio.ByteWriter{Writer: &b, KeepReaderAnnotations: true}).Write(nodes); err != nil {
		t.Fatal(err)
	}
	seen := map[*yaml.Node]int{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			b.WriteString("nil\n")
			return
		}
		if i, ok := seen[n]; ok {
			fmt.Fprintf(&b, "shared %d\n", i)
			return
		}
		seen[n] = len(seen)
		fmt.Fprintf(&b, "%d %q %d %q %d:%d %q %q %q (\n", n.Kind, n.Tag, n.Style, n.Value, n.Line, n.Column,
			n.HeadComment, n.LineComment, n.FootComment)
		for _, c := range n.Content {
			walk(c)
		}
		b.WriteString(")\n")
	}
	for _, n := range nodes {
		walk(n.Document())
	}
	return b.String()
}
