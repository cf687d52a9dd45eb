package update

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// conformanceDir is the project's copy of the update conformance cases.
const conformanceDir = "../../testdata/conformance/update"

// wantConflicts are the conflicts a case must report (file, field, taken),
// beyond giving kpt's files: kpt reports none, porchbot every one.
var wantConflicts = map[string][]string{
	"conflict-same-field":      {"deployment.yaml spec.template.spec.containers[name=web].image upstream"},
	"conflict-list-and-scalar": {"deployment.yaml spec.replicas upstream", "deployment.yaml spec.template.spec.containers[name=web].args upstream"},
	"conflict-kptfile-info":    {"Kptfile info.description upstream"},
}

// TestConformanceUpdate runs every case of testdata/conformance/update:
// Merge of local from origin to updated gives expected/ byte for byte (the
// Kptfile's repository URLs and commit SHAs come from expected/, as the
// README says: they name the repository the case was made in).
func TestConformanceUpdate(t *testing.T) {
	n := runConformance(t, conformanceDir)
	if n < 10 {
		t.Fatalf("only %d cases in %s", n, conformanceDir)
	}
}

// TestConformanceUpdateShared runs the optional outside corpus that
// PORCHBOT_UPDATE_CONFORMANCE_DIR names (CI sets it when the project's
// shared corpus is beside the clone) as well; it skips, saying so, when unset.
func TestConformanceUpdateShared(t *testing.T) {
	dir := os.Getenv("PORCHBOT_UPDATE_CONFORMANCE_DIR")
	if dir == "" {
		t.Skip("PORCHBOT_UPDATE_CONFORMANCE_DIR is not set: only the project's copy of the cases ran (TestConformanceUpdate)")
	}
	if runConformance(t, dir) == 0 {
		t.Fatalf("no case in %s", dir)
	}
}

func runConformance(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		c := filepath.Join(dir, e.Name())
		t.Run(e.Name(), func(t *testing.T) { runCase(t, c) })
	}
	return n
}

func runCase(t *testing.T, dir string) {
	origin, updated, local := readDir(t, filepath.Join(dir, "origin")), readDir(t, filepath.Join(dir, "updated")), readDir(t, filepath.Join(dir, "local"))
	code := strings.TrimSpace(string(mustRead(t, filepath.Join(dir, "exit-code"))))
	opts := Options{}
	if code == "0" {
		opts = caseOptions(t, readDir(t, filepath.Join(dir, "expected")), local)
	}
	// the --strategy kpt was given, when the case names one
	if b, err := os.ReadFile(filepath.Join(dir, "strategy")); err == nil {
		opts.Strategy = strings.TrimSpace(string(b))
	}
	res, err := Merge(origin, updated, local, opts)
	if code != "0" {
		if err == nil {
			t.Fatalf("kpt failed (exit %s) but Merge succeeded", code)
		}
		return
	}
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	want := readDir(t, filepath.Join(dir, "expected"))
	if d := diffFiles(res.Files, want); d != "" {
		t.Errorf("result differs from kpt's:\n%s", d)
	}
	var got []string
	for _, c := range res.Conflicts {
		got = append(got, c.File+" "+c.Field+" "+c.Taken)
	}
	sort.Strings(got)
	w := append([]string(nil), wantConflicts[filepath.Base(dir)]...)
	sort.Strings(w)
	if strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("conflicts:\n got %q\nwant %q", got, w)
	}
}

// caseOptions are what `kpt pkg update app@v2` is told: ref v2, resolved
// to the tag <dir>/v2 of the repository and commit expected/ records.
func caseOptions(t *testing.T, expected, local Files) Options {
	t.Helper()
	ef, err := kptfile.Parse(expected[kptfile.FileName])
	if err != nil {
		t.Fatal(err)
	}
	lf, err := kptfile.Parse(local[kptfile.FileName])
	if err != nil {
		t.Fatal(err)
	}
	el, ll := ef.Kptfile().UpstreamLock.Git, lf.Kptfile().UpstreamLock.Git
	return Options{
		Ref: "v2",
		Lock: &kptfile.GitLock{
			Repo:      el.Repo,
			Directory: ll.Directory,
			Ref:       path.Join(strings.TrimPrefix(ll.Directory, "/"), "v2"),
			Commit:    el.Commit,
		},
	}
}

func readDir(t testing.TB, dir string) Files {
	t.Helper()
	out := Files{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// diffFiles describes how got differs from want ("" when equal).
func diffFiles(got, want Files) string {
	var names []string
	seen := map[string]bool{}
	for _, fs := range []Files{got, want} {
		for p := range fs {
			if !seen[p] {
				seen[p] = true
				names = append(names, p)
			}
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, p := range names {
		g, gok := got[p]
		w, wok := want[p]
		switch {
		case !gok:
			fmt.Fprintf(&b, "missing %s\n", p)
		case !wok:
			fmt.Fprintf(&b, "extra %s:\n%s\n", p, g)
		case !bytes.Equal(g, w):
			fmt.Fprintf(&b, "--- %s got:\n%s\n--- want:\n%s\n", p, g, w)
		}
	}
	return b.String()
}
