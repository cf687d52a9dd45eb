package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/update"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

const upKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"

func deployment(replicas, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ` + replicas + `
  template:
    spec:
      containers:
        - name: web
          image: ` + image + `
`
}

// downstreamKptfile is the Kptfile kpt pkg get writes for app@v1.
func downstreamKptfile(repo, commit string) string {
	return upstreamtest.Kptfile("app", repo, "/app", "v1", "app/v1", commit)
}

func runUpdateCmd(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(context.Background(), append([]string{"update"}, args...), stdio{in: strings.NewReader(""), out: &o, err: &e})
	return o.String(), e.String(), code
}

// TestUpdateRefusesBadInput: each bad input is named, with its file (and
// line), exit code 1, and the package is left as it was.
func TestUpdateRefusesBadInput(t *testing.T) {
	up := upstreamtest.New(t)
	v1 := up.Release("app", "v1", map[string]string{"Kptfile": upKptfile, "deploy.yaml": deployment("1", "web:1")})
	up.Release("app", "v2", map[string]string{"deploy.yaml": deployment("1", "web:2")})
	broken := upstreamtest.New(t)
	bv1 := broken.Release("app", "v1", map[string]string{"Kptfile": upKptfile, "deploy.yaml": deployment("1", "web:1")})
	broken.Release("app", "v2", map[string]string{"deploy.yaml": "spec:\n  replicas: [\n"})

	good := map[string]string{"Kptfile": downstreamKptfile(up.Dir, v1), "deploy.yaml": deployment("3", "web:1")}
	with := func(base map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for p, c := range base {
			out[p] = c
		}
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		ref   string
		want  []string
	}{
		{"not a package", with(good, "Kptfile", ""), "", []string{"is not a kpt package", "Kptfile does not exist"}},
		{"no upstream", with(good, "Kptfile", upKptfile), "", []string{"Kptfile: no upstream.git.repo"}},
		{"Kptfile does not parse", with(good, "Kptfile", "apiVersion: kpt.dev/v1\nkind: [\n"), "", []string{"Kptfile", "2"}},
		{"local YAML does not parse", with(good, "deploy.yaml", "a: 1\nb: [\n"), "", []string{"/deploy.yaml", "line 2"}},
		{"upstream cannot be fetched", with(good, "Kptfile", downstreamKptfile(filepath.Join(t.TempDir(), "gone"), v1)), "",
			[]string{"Kptfile", "cannot be fetched"}},
		{"ref does not exist", good, "v9", []string{`ref "v9"`, "app/v9", "not found"}},
		{"lock commit does not exist", with(good, "Kptfile", downstreamKptfile(up.Dir, strings.Repeat("1", 40))), "v2",
			[]string{"upstreamLock", strings.Repeat("1", 40)}},
		{"upstream YAML does not parse", with(good, "Kptfile", downstreamKptfile(broken.Dir, bv1)), "v2",
			[]string{"upstream " + broken.Dir + "@app/v2: app/deploy.yaml", "line 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePkg(t, tc.files)
			before := snapshot(t, dir)
			arg := dir
			if tc.ref != "" {
				arg += "@" + tc.ref
			}
			_, stderr, code := runUpdateCmd(arg)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if after := snapshot(t, dir); !equalMaps(before, after) {
				t.Errorf("the package changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestUpdateFlags(t *testing.T) {
	for _, args := range [][]string{{"--strategy", "rebase", "x"}, {"--on-conflict", "mine", "x"}, {}, {"a", "b"}} {
		if _, stderr, code := runUpdateCmd(args...); code != 1 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// requireEngine skips when internal/update.Merge is still the stub of the
// branch this was written on (the engine is built on its own branch).
func requireEngine(t *testing.T) {
	t.Helper()
	if _, err := update.Merge(update.Files{}, update.Files{}, update.Files{}, update.Options{}); err != nil &&
		strings.Contains(err.Error(), "not implemented") {
		t.Skip("internal/update.Merge is not implemented on this branch yet")
	}
}
