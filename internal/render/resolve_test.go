package render

import (
	"context"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// renderOne renders a one-package tree held in memory.
func renderOne(t *testing.T, files map[string]string) (filesys.FileSystem, error) {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for p, c := range files {
		if err := fs.WriteFile("/pkg/"+p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Render(context.Background(), fs, "/pkg", Options{})
	return fs, err
}

// A render whose Kptfile names a built-in at a tag porchbot cannot tie to a
// release it reproduces fails with one message and leaves the package as it
// was: nothing runs in that release's place.
func TestRenderRefusesUntiedTags(t *testing.T) {
	for image, want := range map[string]string{
		"ghcr.io/kptdev/krm-functions-catalog/set-namespace:v7":     `the tag "v7" is not a release`,
		"ghcr.io/kptdev/krm-functions-catalog/set-namespace:stable": `the tag "stable" is not a release`,
	} {
		files := map[string]string{
			"Kptfile": kptfile("app", "pipeline:\n  mutators:\n    - image: "+image+"\n      configMap:\n        namespace: prod\n"),
			"cm.yaml": cm("a"),
		}
		fs, err := renderOne(t, files)
		var uf *UnsupportedFunctionError
		if !errors.As(err, &uf) {
			t.Errorf("%s: got %v, want an UnsupportedFunctionError", image, err)
			continue
		}
		for _, w := range []string{`function "` + image + `": `, want, "porchbot runs set-namespace v", "pin one of them", "exec allowlist"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: message lacks %q:\n%v", image, w, err)
			}
		}
		if b, _ := fs.ReadFile("/pkg/cm.yaml"); string(b) != files["cm.yaml"] {
			t.Errorf("%s: cm.yaml changed:\n%s", image, b)
		}
	}
}

// The Kptfile's `tag` field (newer kpt's version constraint) picks the
// release as kpt does: the newest one it allows.
func TestRenderHonoursTagConstraint(t *testing.T) {
	files := map[string]string{
		"Kptfile": kptfile("app", "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-namespace\n      tag: \"~0.4.0\"\n      configMap:\n        namespace: prod\n"),
		"cm.yaml": cm("a"),
	}
	fs, err := renderOne(t, files)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := fs.ReadFile("/pkg/cm.yaml"); !strings.Contains(string(b), "namespace: prod") {
		t.Errorf("cm.yaml not rendered:\n%s", b)
	}
	files["Kptfile"] = strings.Replace(files["Kptfile"], "~0.4.0", ">=v9", 1)
	if _, err := renderOne(t, files); err == nil || !strings.Contains(err.Error(), `no release of set-namespace meets the version constraint ">=v9"`) {
		t.Errorf("constraint >=v9: got %v", err)
	}
}

// TestRenderLatestRunsTheNewestRelease: latest, or no tag, runs the newest
// release porchbot knows, as kpt pulls the catalog's newest; the step
// records the release that ran and how it was resolved, as a tag or a
// constraint's step records its release.
func TestRenderLatestRunsTheNewestRelease(t *testing.T) {
	for image, want := range map[string]string{
		"ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest": "latest is v0.4.1",
		"set-namespace":                    "latest is v0.4.1",
		"gcr.io/kpt-fn/set-namespace:v0.3": "",
	} {
		fs := filesys.MakeFsInMemory()
		for p, c := range map[string]string{
			"Kptfile": kptfile("app", "pipeline:\n  mutators:\n    - image: "+image+"\n      configMap:\n        namespace: prod\n"),
			"cm.yaml": cm("a"),
		} {
			if err := fs.WriteFile("/pkg/"+p, []byte(c)); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Render(context.Background(), fs, "/pkg", Options{})
		if err != nil {
			t.Fatalf("%s: %v", image, err)
		}
		if b, _ := fs.ReadFile("/pkg/cm.yaml"); want != "" && !strings.Contains(string(b), "namespace: prod") {
			t.Errorf("%s: cm.yaml not rendered:\n%s", image, b)
		}
		st := res.Steps[0]
		wantRelease := "v0.4.1"
		if want == "" {
			wantRelease = "v0.3.4"
		}
		if st.Release != wantRelease || (want == "") != (st.ReleaseNote == "") || !strings.Contains(st.ReleaseNote, want) {
			t.Errorf("%s: ran as %s, note %q; want %s and a note with %q", image, st.Release, st.ReleaseNote, wantRelease, want)
		}
	}
}
