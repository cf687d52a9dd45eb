package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/render/kpttest"
)

// The tests in this file run `porchbot render` as a built binary beside
// `kpt fn render` on copies of the same package, with porchbot's built-ins
// run by kpt as exec functions (wrapper scripts running `porchbot fn NAME`,
// as internal/render's corpus test does: no container image is needed), and
// require the same exit code, stderr (times normalised), stdout and files.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// porchbotBinary builds cmd/porchbot once per test run.
func porchbotBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "porchbot-render-test")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "porchbot")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// kptRig is a work directory with the function scripts both tools run.
type kptRig struct {
	t        *testing.T
	kpt, bin string
	release  render.KptRelease // the installed kpt's, which porchbot is asked for
	work     string
	fns      string
}

func newKptRig(t *testing.T) *kptRig {
	t.Helper()
	kpt, v := kpttest.Installed(t)
	rel, err := render.ParseKptRelease(v)
	if err != nil {
		t.Skipf("the installed kpt cannot be compared with: %v", err)
	}
	r := &kptRig{t: t, kpt: kpt, release: rel, bin: porchbotBinary(t), work: t.TempDir()}
	r.fns = filepath.Join(r.work, "fns")
	scripts := map[string]string{
		"set-namespace": fmt.Sprintf("exec %s fn set-namespace\n", r.bin),
		// a function that talks on stderr and passes
		"set-labels": fmt.Sprintf("echo 'hello from fn' >&2\necho 'line2' >&2\nexec %s fn set-labels\n", r.bin),
		// a validator that fails with more stderr than kpt shows
		"deny": "for i in 1 2 3 4 5 6; do echo \"err $i\" >&2; done\nexit 3\n",
		// a mutator that puts a resource outside its package
		"escape": "cat >/dev/null\ncat <<'Y'\n" + escapeList + "Y\n",
		// a validator that fails with structured results only
		"report": "cat >/dev/null\ncat <<'Y'\n" + reportList + "Y\nexit 1\n",
	}
	for name, body := range scripts {
		if err := os.MkdirAll(r.fns, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.fns, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// pkg writes files (with @FN@ standing for the scripts' directory) under
// work/<side>/<name> for both sides.
func (r *kptRig) pkg(name string, files map[string]string) {
	r.t.Helper()
	for _, side := range []string{"kpt", "porchbot"} {
		for p, c := range files {
			abs := filepath.Join(r.work, side, name, p)
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				r.t.Fatal(err)
			}
			if err := os.WriteFile(abs, []byte(strings.ReplaceAll(c, "@FN@", r.fns)), 0o644); err != nil {
				r.t.Fatal(err)
			}
		}
	}
}

// reportList is results naming resources and fields in each way kpt shows.
const reportList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
results:
- message: plain
  severity: error
- message: namespaced
  severity: warning
  resourceRef: {apiVersion: v1, kind: ConfigMap, name: cm, namespace: ns}
  field: {path: data.k, currentValue: a, proposedValue: b}
  file: {path: cm.yaml, index: 0}
- message: cluster-scoped
  resourceRef: {apiVersion: apps/v1, kind: Deployment, name: d}
- message: field only
  field: {path: spec.x}
- message: file only
  file: {path: cm.yaml}
- message: name only
  resourceRef: {name: x}
`

// escapeList is a resource whose path leaves the package.
const escapeList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: evil, annotations: {
    config.kubernetes.io/path: ../evil.yaml, internal.config.kubernetes.io/path: ../evil.yaml}}}
`

type runOut struct {
	code           int
	stdout, stderr string
}

var durationRE = regexp.MustCompile(`\] ("[^"]*") in [0-9.]+(ms|s|µs|m[0-9.]+s)\n`)

// run runs `kpt fn render ARGS` in work/kpt and `porchbot render --kpt
// <the installed kpt's release> ARGS` in work/porchbot.
func (r *kptRig) run(args ...string) (kpt, pb runOut) {
	r.t.Helper()
	one := func(dir string, name string, a ...string) runOut {
		cmd := exec.Command(name, a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		switch {
		case err == nil:
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			r.t.Fatalf("%s: %v", name, err)
		}
		stderr := durationRE.ReplaceAllString(se.String(), "] $1 in T\n")
		// absolute paths name each side's copy of the package
		stderr = strings.ReplaceAll(stderr, dir+string(filepath.Separator), "WORK/")
		return runOut{code: code, stdout: so.String(), stderr: stderr}
	}
	kd, pd := filepath.Join(r.work, "kpt"), filepath.Join(r.work, "porchbot")
	for _, d := range []string{kd, pd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			r.t.Fatal(err)
		}
	}
	return one(kd, r.kpt, append([]string{"fn", "render"}, args...)...), one(pd, r.bin, append([]string{"render", "--kpt", string(r.release)}, args...)...)
}

// same requires the same exit code, stdout and stderr.
func (r *kptRig) same(kpt, pb runOut) {
	r.t.Helper()
	if kpt.code != pb.code {
		r.t.Errorf("exit code: kpt %d, porchbot %d", kpt.code, pb.code)
	}
	if kpt.stderr != pb.stderr {
		r.t.Errorf("stderr differs\n--- kpt:\n%s\n--- porchbot:\n%s", kpt.stderr, pb.stderr)
	}
	if kpt.stdout != pb.stdout {
		r.t.Errorf("stdout differs\n--- kpt:\n%s\n--- porchbot:\n%s", kpt.stdout, pb.stdout)
	}
}

// sameTree requires work/kpt/rel and work/porchbot/rel to hold the same
// files with the same bytes.
func (r *kptRig) sameTree(rel string) {
	r.t.Helper()
	read := func(side string) map[string]string {
		files := map[string]string{}
		root := filepath.Join(r.work, side, rel)
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			files[strings.TrimPrefix(p, root)] = string(b)
			return err
		})
		if err != nil {
			r.t.Fatalf("%s: %v", side, err)
		}
		return files
	}
	k, p := read("kpt"), read("porchbot")
	if len(k) != len(p) {
		r.t.Errorf("%s: kpt wrote %d files, porchbot %d", rel, len(k), len(p))
	}
	for f, kb := range k {
		if pb, ok := p[f]; !ok || pb != kb {
			r.t.Errorf("%s%s differs\n--- kpt:\n%s\n--- porchbot:\n%s", rel, f, kb, pb)
		}
	}
}

// twoPackages is a root package and a subpackage running functions that
// write results and stderr.
func twoPackages() map[string]string {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: 'v'\n"
	return map[string]string{
		"Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
    - exec: @FN@/set-namespace
      configMap:
        namespace: shop
    - exec: @FN@/set-labels
      configMap:
        tier: web
`,
		"cm.yaml": cm,
		"sub/Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: sub
pipeline:
  mutators:
    - exec: @FN@/set-labels
      configMap:
        part: db
`,
		"sub/cm.yaml": cm,
		"README.md":   "# app\n",
	}
}

func TestRenderAsKptInPlace(t *testing.T) {
	r := newKptRig(t)
	r.pkg("app", twoPackages())
	k, p := r.run("--allow-exec", "app", "--results-dir", "res")
	r.same(k, p)
	if !strings.Contains(p.stderr, "Successfully executed 3 function(s) in 2 package(s).\nFor complete results, see res/results.yaml\n") ||
		!strings.Contains(p.stderr, "    \"hello from fn\"\n") || !strings.Contains(p.stderr, "line(s) truncated") {
		t.Errorf("progress:\n%s", p.stderr)
	}
	r.sameTree("app")
	r.sameTree("res")

	// three levels, a subpackage without a pipeline, results without stderr
	nested := twoPackages()
	nested["sub/deeper/Kptfile"] = nested["Kptfile"]
	nested["sub/deeper/cm.yaml"] = nested["cm.yaml"]
	nested["sub/plain/Kptfile"] = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: plain\n"
	nested["Kptfile"] = strings.Replace(nested["Kptfile"], "    - exec: @FN@/set-labels\n      configMap:\n        tier: web\n", "", 1)
	r.pkg("nested", nested)
	k, p = r.run("--allow-exec", "nested")
	r.same(k, p)
	r.sameTree("nested")
	if !strings.Contains(p.stderr, "Successfully executed 4 function(s) in 4 package(s).") {
		t.Errorf("progress:\n%s", p.stderr)
	}

	// --truncate-output=false shows every line
	r.pkg("again", twoPackages())
	k, p = r.run("--truncate-output=false", "--allow-exec", "again")
	r.same(k, p)
	if strings.Contains(p.stderr, "truncated") {
		t.Errorf("truncated:\n%s", p.stderr)
	}
}

func TestRenderAsKptOutOfPlace(t *testing.T) {
	r := newKptRig(t)
	r.pkg("app", twoPackages())
	for _, o := range []string{"stdout", "unwrap"} {
		k, p := r.run("--allow-exec", "-o", o, "app")
		r.same(k, p)
		if !strings.Contains(p.stdout, "namespace: shop") {
			t.Errorf("-o %s wrote no rendered resources:\n%s", o, p.stdout)
		}
	}
	k, p := r.run("--allow-exec", "--output", "out", "app")
	r.same(k, p)
	r.sameTree("out")
	r.sameTree("app") // untouched on both sides
	if b, err := os.ReadFile(filepath.Join(r.work, "porchbot", "app", "cm.yaml")); err != nil || strings.Contains(string(b), "shop") {
		t.Errorf("-o DIR rendered in place: %v\n%s", err, b)
	}
	// the directory must not exist yet
	k, p = r.run("--allow-exec", "-o", "out", "app")
	r.same(k, p)
	if p.code != 1 || p.stderr != "error: directory \"out\" already exists, please delete the directory and retry\n" {
		t.Errorf("existing -o DIR: %d %q", p.code, p.stderr)
	}
}

func TestRenderAsKptFailures(t *testing.T) {
	r := newKptRig(t)
	minimal := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: %s\n"
	r.pkg("deny", map[string]string{
		"Kptfile": fmt.Sprintf(minimal, "deny") + "pipeline:\n  validators:\n    - exec: @FN@/deny\n",
	})
	r.pkg("nokptfile", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"})
	r.pkg("unknownfield", map[string]string{"Kptfile": fmt.Sprintf(minimal, "u") + "foo: bar\n"})
	r.pkg("unknownnested", map[string]string{"Kptfile": fmt.Sprintf(minimal, "n") +
		"  foo: 1\npipeline:\n  mutators:\n    - image: a\n      bar: 1\n      selectors:\n        - baz: 1\nupstream:\n  git:\n    qux: 1\n"})
	r.pkg("unknowngate", map[string]string{"Kptfile": fmt.Sprintf(minimal, "g") + "info:\n  readinessGates:\n    - foo: 1\n"})
	r.pkg("noconfig", map[string]string{
		"Kptfile":     fmt.Sprintf(minimal, "noconfig"),
		"sub/Kptfile": fmt.Sprintf(minimal, "sub") + "pipeline:\n  mutators:\n    - exec: @FN@/set-namespace\n      configPath: nothere.yaml\n",
	})
	for name, fn := range map[string]string{
		"nofunction": "    - name: x\n", "emptyimage": "    - image: \"\"\n",
		"both": "    - image: a\n      exec: b\n", "spacedimage": "    - image: \"bad image\"\n",
	} {
		r.pkg(name, map[string]string{"Kptfile": fmt.Sprintf(minimal, name) + "pipeline:\n  mutators:\n" + fn})
	}
	r.pkg("nonkrm", map[string]string{
		"Kptfile": fmt.Sprintf(minimal, "nonkrm") + "pipeline:\n  validators:\n    - exec: @FN@/deny\n",
		"x.yaml":  "a: b\n",
	})
	r.pkg("escape", map[string]string{
		"Kptfile":     fmt.Sprintf(minimal, "escape"),
		"sub/Kptfile": fmt.Sprintf(minimal, "sub") + "pipeline:\n  mutators:\n    - exec: @FN@/escape\n",
	})
	r.pkg("badconfig", map[string]string{
		"Kptfile": fmt.Sprintf(minimal, "badconfig") + "pipeline:\n  mutators:\n    - exec: @FN@/set-namespace\n      configPath: fn.yaml\n",
		"fn.yaml": "apiVersion: example.com/v1\nkind: Frobnicator\nmetadata:\n  name: fn\n",
	})
	r.pkg("noprogram", map[string]string{"Kptfile": fmt.Sprintf(minimal, "noprogram") + "pipeline:\n  mutators:\n    - exec: @FN@/nothere\n"})
	r.pkg("badyaml", map[string]string{"Kptfile": ": : [\n"})
	r.pkg("badkptline", map[string]string{"Kptfile": fmt.Sprintf(minimal, "badkptline") + "  x: y: z\n"})
	r.pkg("selected", map[string]string{
		"Kptfile": fmt.Sprintf(minimal, "selected") + "pipeline:\n  mutators:\n    - exec: @FN@/set-namespace\n      configMap:\n        namespace: ns\n      selectors:\n        - kind: ConfigMap\n",
		"r.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"})
	r.pkg("oldversion", map[string]string{"Kptfile": "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: oldversion\n"})
	r.pkg("badresource", map[string]string{"Kptfile": fmt.Sprintf(minimal, "badresource"),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: [1, 2\n  b: 3\n"})
	r.pkg("empty", map[string]string{"Kptfile": fmt.Sprintf(minimal, "empty")})
	r.pkg("exec", twoPackages())
	r.pkg("report", map[string]string{
		"Kptfile": fmt.Sprintf(minimal, "report") + "pipeline:\n  validators:\n    - exec: @FN@/report\n",
	})
	for _, c := range []struct {
		name string
		args []string
		want string // in porchbot's stderr
	}{
		{"failing function", []string{"--allow-exec", "deny", "--results-dir", "res"}, "  Exit code: 3\n"},
		{"failing function untruncated", []string{"--allow-exec", "--truncate-output=false", "deny"}, "    \"err 6\"\n"},
		{"structured results", []string{"--allow-exec", "report"}, "    [warning] v1/ConfigMap/ns/cm data.k: namespaced\n"},
		{"structured results untruncated", []string{"--allow-exec", "--truncate-output=false", "report"}, "    [info] x: name only\n  Exit code: 1\n"},
		{"no Kptfile", []string{"nokptfile"}, "Error: No Kptfile found at "},
		{"unknown field", []string{"unknownfield"}, "  line 5: field foo not found in type v1.KptFile \n"},
		{"unknown nested fields", []string{"unknownnested"}, "  line 5: field foo not found in type yaml.ObjectMeta\n  line 9: field bar not found in type v1.Function\n"},
		{"unknown field before a missing one", []string{"unknowngate"}, "  line 7: field foo not found in type v1.ReadinessGate \n"},
		{"configPath outside the package", []string{"--allow-exec", "noconfig"}, "Kptfile is invalid:\nField: `pipeline.mutators[0].configPath`\n"},
		{"function without image or exec", []string{"nofunction"}, "Reason: must specify a functon (`image` or `exec`) to execute\n \n"},
		{"empty image", []string{"emptyimage"}, "Field: `pipeline.mutators[0]`\n"},
		{"image and exec", []string{"both"}, "Reason: must not specify both `image` and `exec` at the same time\n"},
		{"image with a space", []string{"spacedimage"}, "Value: \"bad image\"\nReason: function name \"bad image\" is invalid\n"},
		{"a file that is not KRM", []string{"--allow-exec", "nonkrm"}, "Error: input resource list must contain only KRM resources: x.yaml: resource must have `apiVersion` \n"},
		{"a resource outside its package", []string{"--allow-exec", "escape"}, "Error: function must not modify resources outside of package: resource has path ../evil.yaml \n"},
		{"a function config of an unknown kind", []string{"--allow-exec", "badconfig"}, "[error] example.com/v1/Frobnicator/fn: unknown functionConfig Kind=Frobnicator"},
		{"an exec program that is not there", []string{"--allow-exec", "noprogram"}, "Error: unexpected function error: fork/exec "},
		{"unreadable Kptfile", []string{"badyaml"}, "can't be read.\n\nDetails:\nyaml: "},
		{"a Kptfile that is not YAML, on its line 5", []string{"badkptline"}, "Details:\nyaml: line 5: mapping values are not allowed in this context \n"},
		{"a function with selectors", []string{"--allow-exec", "selected"}, "/set-namespace\" on 1 resource(s)\n"},
		{"a Kptfile of an old version", []string{"oldversion"}, "has an old version (\"v1alpha2\") of the Kptfile schema.\nPlease run \"kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources\" to upgrade the package and retry. \n"},
		{"a resource that is not YAML", []string{"badresource"}, "/badresource/cm.yaml: MalformedYAMLError: yaml: line 5: did not find expected ',' or ']' \n"},
		{"missing directory", []string{"nothere"}, "error: lstat nothere: no such file or directory\n"},
		{"exec without --allow-exec", []string{"exec"}, "Error: must run with `--allow-exec` option to allow running function binaries \n"},
		{"unknown flag", []string{"--bogus", "empty"}, "error: unknown flag: --bogus\n"},
		{"bad image pull policy", []string{"--image-pull-policy", "sometimes", "empty"}, "must be one of: Always, IfNotPresent, Never\n"},
		{"first argument only", []string{"empty", "nokptfile"}, "Successfully executed 0 function(s) in 1 package(s).\n"},
		{"accepted flags", []string{"--allow-network", "--allow-alpha-wasm", "--truncate-output", "empty"}, "Package \"empty\": \n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, p := r.run(c.args...)
			r.same(k, p)
			if !strings.Contains(p.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, p.stderr)
			}
		})
	}
	r.sameTree("res")
}

// TestRenderImagePullPolicy: accepted, and porchbot says once that there is
// nothing to pull; the render is otherwise kpt's.
func TestRenderImagePullPolicy(t *testing.T) {
	r := newKptRig(t)
	r.pkg("empty", map[string]string{"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: empty\n"})
	k, p := r.run("--image-pull-policy", "Always", "empty")
	note := "porchbot: --image-pull-policy has no effect: built-in functions run in process, no image is pulled\n"
	if p.code != 0 || strings.Count(p.stderr, note) != 1 {
		t.Fatalf("%d:\n%s", p.code, p.stderr)
	}
	p.stderr = strings.Replace(p.stderr, note, "", 1)
	r.same(k, p)
}
