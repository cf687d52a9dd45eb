package render

import (
	"context"
	"errors"
	"slices"
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
		"gcr.io/kpt-fn/set-namespace:v0.3": "", // a line v0.4 followed: closed
		"gcr.io/kpt-fn/set-namespace:v0.4": "v0.4 is v0.4.1, the newest release of the v0.4 line of set-namespace porchbot knows; " +
			"kpt pulls the release the catalog's v0.4 tag names now",
		"set-namespace\n      tag: 0.4.1 - 0.4.3": `"0.4.1 - 0.4.3" is v0.4.1, the newest release of set-namespace porchbot knows that meets it; ` +
			"kpt pulls the newest the catalog has published that meets it",
		"set-namespace\n      tag: ~0.3": "",
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
		if strings.Contains(image, "0.3") {
			wantRelease = "v0.3.4"
		}
		if st.Release != wantRelease || (want == "") != (st.ReleaseNote == "") || !strings.Contains(st.ReleaseNote, want) {
			t.Errorf("%s: ran as %s, note %q; want %s and a note with %q", image, st.Release, st.ReleaseNote, wantRelease, want)
		}
	}
}

// TestRenderAsKptBeta67RecordsItself: rendering as kpt v1.0.0-beta.67
// records the render in the root Kptfile, on success (and the Kptfile
// joins the files changed) and on a function's failure (nothing else is
// written); as v1.0.0-beta.56 the Kptfile is left as the functions leave
// it.
func TestRenderAsKptBeta67RecordsItself(t *testing.T) {
	pipeline := "pipeline:\n  mutators:\n    - image: set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n"
	render := func(rel KptRelease, pipeline string) (filesys.FileSystem, *Result, error) {
		fs := filesys.MakeFsInMemory()
		for p, c := range map[string]string{"Kptfile": kptfile("app", pipeline), "cm.yaml": cm("a")} {
			if err := fs.WriteFile("/pkg/"+p, []byte(c)); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Render(context.Background(), fs, "/pkg", Options{Kpt: rel})
		return fs, res, err
	}
	fs, res, err := render(KptBeta67, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	kf, _ := fs.ReadFile("/pkg/Kptfile")
	for _, want := range []string{"    - type: Rendered\n      status: \"True\"\n      reason: RenderSuccess\n",
		"  renderStatus:\n    mutationSteps:\n      - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n        exitCode: 0\n"} {
		if !strings.Contains(string(kf), want) {
			t.Errorf("Kptfile lacks\n%s\n%s", want, kf)
		}
	}
	if !slices.Contains(res.Changed, "Kptfile") {
		t.Errorf("changed %v, want the Kptfile among them", res.Changed)
	}
	fs, _, err = render(KptBeta67, pipeline+"    - image: starlark:v0.5.1\n      configMap:\n        source: fail('no')\n")
	if err == nil {
		t.Fatal("a failing starlark program rendered")
	}
	kf, _ = fs.ReadFile("/pkg/Kptfile")
	for _, want := range []string{"      status: \"False\"\n      reason: RenderFailed\n      message: |-\n        pkg.render: pkg .:\n        \tpipeline.run: already handled error\n",
		"errorSummary: 'ghcr.io/kptdev/krm-functions-catalog/starlark:v0.5.1: exit code 1'"} {
		if !strings.Contains(string(kf), want) {
			t.Errorf("failed render: Kptfile lacks\n%s\n%s", want, kf)
		}
	}
	if b, _ := fs.ReadFile("/pkg/cm.yaml"); strings.Contains(string(b), "namespace: prod") {
		t.Errorf("a failed render wrote cm.yaml:\n%s", b)
	}
	fs, _, err = render(KptBeta56, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	if kf, _ := fs.ReadFile("/pkg/Kptfile"); strings.Contains(string(kf), "status") {
		t.Errorf("kpt v1.0.0-beta.56 records no status:\n%s", kf)
	}
}
