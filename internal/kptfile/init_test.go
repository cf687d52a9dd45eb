package kptfile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewGolden(t *testing.T) {
	f := New("mypkg", "my desc")
	got, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: mypkg
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: my desc
`
	if string(got) != want {
		t.Errorf("New =\n%s\nwant\n%s", got, want)
	}
	if f.Name() != "mypkg" || f.Description() != "my desc" || f.Edited() {
		t.Errorf("typed view: %q %q edited=%v", f.Name(), f.Description(), f.Edited())
	}
	if ann := f.Kptfile().Metadata.Annotations[LocalConfigAnnotation]; ann != "true" {
		t.Errorf("local-config annotation = %q", ann)
	}
	empty, _ := New("a", "").Bytes()
	if !bytes.HasSuffix(empty, []byte("\ninfo: {}\n")) {
		t.Errorf("New with no description ends %q, want info: {}", empty)
	}
}

// TestNewMatchesKptPkgInit runs `kpt pkg init` and compares every file it
// writes with InitFiles, and its Kptfile with New.
func TestNewMatchesKptPkgInit(t *testing.T) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt is not installed; the comparison with kpt pkg init is skipped")
	}
	tests := []struct {
		dir  string
		opts InitOptions
		args []string
	}{
		{"mypkg", InitOptions{Description: "my desc"}, []string{"--description", "my desc"}},
		{"basens", InitOptions{Description: DefaultDescription}, nil},
		{"empty", InitOptions{}, []string{"--description", ""}},
		{"with-info", InitOptions{Description: "multi: colon", Keywords: []string{"x", "y", "5g"}, Site: "https://example.com/x"},
			[]string{"--description", "multi: colon", "--keywords", "x,y,5g", "--site", "https://example.com/x"}},
		{"lines", InitOptions{Description: "line1\nline2"}, []string{"--description", "line1\nline2"}},
		{"quotes", InitOptions{Description: `it's "quoted" # not a comment`}, []string{"--description", `it's "quoted" # not a comment`}},
		{"a+b&c", InitOptions{Description: "<b>1 + 1 & 'x'</b>"}, []string{"--description", "<b>1 + 1 & 'x'</b>"}},
		{"scalar-like", InitOptions{Description: "true", Keywords: []string{"yes", "123", "null"}},
			[]string{"--description", "true", "--keywords", "yes,123,null"}},
	}
	base := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(base, tt.dir)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(kpt, append([]string{"pkg", "init", dir}, tt.args...)...)
			cmd.Env = append(os.Environ(), "HOME="+base)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kpt pkg init: %v\n%s", err, out)
			}
			opts := tt.opts
			opts.Name = tt.dir
			files := InitFiles(opts)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(files) {
				t.Errorf("kpt wrote %d files, InitFiles gives %d", len(entries), len(files))
			}
			for _, e := range entries {
				want, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if got := files[e.Name()]; !bytes.Equal(got, want) {
					t.Errorf("%s differs from kpt's:\n--- porchbot\n%s--- kpt\n%s", e.Name(), got, want)
				}
			}
			want, _ := os.ReadFile(filepath.Join(dir, FileName))
			got, err := NewInit(opts).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("NewInit differs from kpt's Kptfile:\n%s\nvs\n%s", got, want)
			}
			if opts.Keywords == nil && opts.Site == "" {
				if got, _ := New(opts.Name, opts.Description).Bytes(); !bytes.Equal(got, want) {
					t.Errorf("New differs from kpt's Kptfile:\n%s\nvs\n%s", got, want)
				}
			}
		})
	}
}

func TestReadme(t *testing.T) {
	r := string(Readme("upf", "User plane"))
	for _, want := range []string{"# upf\n\n## Description\nUser plane\n\n", "kpt pkg get REPO_URI[.git]/PKG_PATH[@VERSION] upf", "kpt live apply upf"} {
		if !strings.Contains(r, want) {
			t.Errorf("README misses %q:\n%s", want, r)
		}
	}
	if _, err := Parse(InitFiles(InitOptions{Name: "x"})[FileName]); err != nil {
		t.Errorf("InitFiles Kptfile does not parse: %v", err)
	}
}
