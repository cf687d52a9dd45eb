package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/render"
)

// kptCaseConfig is the part of a case's .expected/config.yaml porchbot's
// runner reads (kpt's pkg/test/runner TestCaseConfig).
type kptCaseConfig struct {
	ExitCode         int      `yaml:"exitCode"`
	StdErr           string   `yaml:"stdErr"`
	StdErrRegEx      string   `yaml:"stdErrRegEx"`
	StdErrStripLines []string `yaml:"stdErrStripLines"`
	StdOut           string   `yaml:"stdOut"`
	ActualStripLines []string `yaml:"actualStripLines"`
	DiffStripRegEx   string   `yaml:"diffStripRegEx"`
	ImagePullPolicy  string   `yaml:"imagePullPolicy"`
	AllowExec        bool     `yaml:"allowExec"`
	AllowWasm        bool     `yaml:"allowWasm"`
	Skip             bool     `yaml:"skip"`
	TestType         string   `yaml:"testType"`
	NoTruncate       bool     `yaml:"disableOutputTruncate"`
}

// kptSuiteCases lists the cases of a suite: every directory holding
// .expected/config.yaml, by its path in the suite.
func kptSuiteCases(t *testing.T, suite string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(suite, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".expected" {
			if _, err := os.Stat(filepath.Join(p, "config.yaml")); err == nil {
				rel, _ := filepath.Rel(suite, filepath.Dir(p))
				out = append(out, filepath.ToSlash(rel))
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// kptDiffers reads <release>.differs: "case: why" per line, # comments.
func kptDiffers(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(why) == "" {
			t.Fatalf("%s: %q is not \"case: why\"", path, line)
		}
		out[strings.TrimSpace(name)] = strings.TrimSpace(why)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKptFnRenderSuites runs kpt's own fn-render suites of each release
// porchbot reproduces (testdata/kpt-fn-render, README there) against
// `porchbot render --kpt <release>`, the way kpt's runner runs them. Every
// case matches but those listed in <release>.differs, which must not.
func TestKptFnRenderSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("kpt's fn-render suites build porchbot and run it per case: not in -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the suites compare renders as git diffs")
	}
	bin := porchbotBinary(t)
	root := filepath.Join("..", "..", "testdata", "kpt-fn-render")
	for _, rel := range render.KptReleases() {
		t.Run(string(rel), func(t *testing.T) {
			suite := filepath.Join(root, string(rel))
			differs := kptDiffers(t, filepath.Join(root, string(rel)+".differs"))
			shim := kptShim(t, bin, rel)
			e2e := kptE2EDir(t, suite)
			cases := kptSuiteCases(t, suite)
			var mu sync.Mutex
			matched := 0
			t.Run("cases", func(t *testing.T) {
				for _, c := range cases {
					t.Run(c, func(t *testing.T) {
						t.Parallel()
						err := runKptCase(t, bin, shim, e2e, rel, filepath.Join(suite, filepath.FromSlash(c)))
						why, listed := differs[c]
						switch {
						case err == nil && listed:
							t.Errorf("matches kpt %s now: take it off %s.differs (%s)", rel, rel, why)
						case err != nil && !listed:
							t.Errorf("differs from kpt %s: %v", rel, err)
						case err != nil:
							t.Logf("differs from kpt %s, as %s.differs says (%s): %s", rel, rel, why, mdquote.TruncateRunes(err.Error(), 2000, "…"))
						}
						if err == nil {
							mu.Lock()
							matched++
							mu.Unlock()
						}
					})
				}
			})
			for c := range differs {
				if !slices.Contains(cases, c) {
					t.Errorf("%s.differs lists %q, no case of the suite", rel, c)
				}
			}
			t.Logf("kpt %s's fn-render suite: %d cases, %d match, %d listed as differing", rel, len(cases), matched, len(differs))
		})
	}
}

// kptShim is a directory holding `kpt`, a script that runs `kpt fn
// render ARGS` as `porchbot render --kpt rel ARGS` for the cases' scripts.
// Both give the schema validators the schemas in testdata/kube-schemas, in
// place of those the catalog's images bundle.
func kptShim(t *testing.T, bin string, rel render.KptRelease) string {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = fn ] && [ \"$2\" = render ]; then\n  shift 2\n  exec %q render --kpt %s --schema-dir %q \"$@\"\nfi\n"+
		"echo \"porchbot's kpt stand-in runs only kpt fn render\" >&2\nexit 127\n", bin, rel, kubeSchemas(t))
	if err := os.WriteFile(filepath.Join(dir, "kpt"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runKptCase runs one case as kpt's runner does (runFnRender): the
// package copied to a kpt-pipeline-e2e-* directory and committed,
// setup.sh run, then exec.sh or `porchbot render` with the case's flags;
// exit code, stderr (contains), stdout (contains), results.yaml and the
// git diff against the first commit compared.
// kptE2EDir is where kpt's runner runs `kpt fn render`: kpt's e2e
// directory, whose testdata/fn-render is the suite (a case's exec path may
// be relative to it).
func kptE2EDir(t *testing.T, suite string) string {
	t.Helper()
	abs, err := filepath.Abs(suite)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "testdata", "fn-render")); err != nil {
		t.Skipf("kpt's suites need a symlink to stand for kpt's e2e directory: %v", err)
	}
	return dir
}

func runKptCase(t *testing.T, bin, shim, e2e string, rel render.KptRelease, dir string) error {
	var cfg kptCaseConfig
	raw, err := os.ReadFile(filepath.Join(dir, ".expected", "config.yaml"))
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return fmt.Errorf("config.yaml: %w", err)
	}
	if cfg.Skip {
		return nil
	}
	if cfg.TestType != "" && cfg.TestType != "render" {
		return fmt.Errorf("test type %q is not a render", cfg.TestType)
	}
	for _, script := range []string{"setup.sh", "exec.sh"} {
		if b, err := os.ReadFile(filepath.Join(dir, ".expected", script)); err == nil && strings.Contains(string(b), "docker ") {
			return fmt.Errorf("its %s runs docker, which this runner does not run", script)
		}
	}
	tmp, err := os.MkdirTemp("", "kpt-pipeline-e2e-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pkg := filepath.Join(tmp, filepath.Base(dir))
	if err := os.CopyFS(pkg, os.DirFS(dir)); err != nil {
		return err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=kpt", "-c", "user.email=kpt@example.com",
			"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = pkg
		cmd.Env = append(os.Environ(), "GIT_DIFF_OPTS=")
		out, err := cmd.Output()
		return string(out), err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if _, err := git(args...); err != nil {
			return fmt.Errorf("git %s: %w", args[0], err)
		}
	}
	first, err := git("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	env := append(os.Environ(), "PATH="+shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	if setup := filepath.Join(dir, ".expected", "setup.sh"); exists(setup) {
		abs, _ := filepath.Abs(setup)
		cmd := exec.Command("bash", abs)
		cmd.Dir, cmd.Env = pkg, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("setup.sh: %w: %s", err, out)
		}
	}
	results := ""
	if exists(filepath.Join(dir, ".expected", "results.yaml")) {
		results = filepath.Join(tmp, "results")
	}
	var cmd *exec.Cmd
	if script := filepath.Join(dir, ".expected", "exec.sh"); exists(script) {
		abs, _ := filepath.Abs(script)
		cmd = exec.Command("bash", abs)
		cmd.Dir = pkg
	} else {
		args := []string{"render", "--kpt", string(rel), "--schema-dir", kubeSchemas(t), pkg}
		if results != "" {
			args = append(args, "--results-dir", results)
		}
		if exists(filepath.Join(dir, "out")) {
			args = append(args, "-o", filepath.Join(pkg, "out"))
		}
		if cfg.ImagePullPolicy != "" {
			args = append(args, "--image-pull-policy", cfg.ImagePullPolicy)
		}
		if cfg.AllowExec {
			args = append(args, "--allow-exec")
		}
		if cfg.AllowWasm {
			args = append(args, "--allow-alpha-wasm")
		}
		if cfg.NoTruncate {
			args = append(args, "--truncate-output=false")
		}
		cmd = exec.Command(bin, args...)
		cmd.Dir = e2e
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		code = exit.ExitCode()
	} else if runErr != nil {
		return runErr
	}
	if code != cfg.ExitCode {
		return fmt.Errorf("exit code %d, want %d; stderr:\n%s", code, cfg.ExitCode, stderr.String())
	}
	gotErr := kptSanitize(stderr.String())
	for _, l := range cfg.StdErrStripLines {
		gotErr = strings.ReplaceAll(gotErr, l+"\n", "")
	}
	if !strings.Contains(gotErr, cfg.StdErr) {
		return fmt.Errorf("stderr\n%s\nwant it to contain\n%s", gotErr, cfg.StdErr)
	}
	if cfg.StdErrRegEx != "" && !regexp.MustCompile(cfg.StdErrRegEx).MatchString(gotErr) {
		return fmt.Errorf("stderr\n%s\ndoes not match %q", gotErr, cfg.StdErrRegEx)
	}
	if !strings.Contains(stdout.String(), cfg.StdOut) {
		return fmt.Errorf("stdout\n%s\nwant it to contain\n%s", stdout.String(), cfg.StdOut)
	}
	if results != "" {
		got := ""
		if entries, _ := os.ReadDir(results); len(entries) == 1 {
			b, _ := os.ReadFile(filepath.Join(results, entries[0].Name()))
			got = strings.TrimSpace(string(b))
		}
		for _, l := range cfg.ActualStripLines {
			got = strings.ReplaceAll(got, l+"\n", "")
		}
		want, _ := os.ReadFile(filepath.Join(dir, ".expected", "results.yaml"))
		if got != strings.TrimSpace(string(want)) {
			return fmt.Errorf("results.yaml\n%s\nwant\n%s", got, want)
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "second"}} {
		if _, err := git(args...); err != nil {
			return fmt.Errorf("git %s: %w", args[0], err)
		}
	}
	got, err := git("diff", strings.TrimSpace(first), "HEAD")
	if err != nil {
		return err
	}
	got = strings.TrimSpace(got)
	wantB, _ := os.ReadFile(filepath.Join(dir, ".expected", "diff.patch"))
	want := strings.TrimSpace(string(wantB))
	if cfg.DiffStripRegEx != "" {
		got, want = kptNormalizeDiff(got, cfg.DiffStripRegEx), kptNormalizeDiff(want, cfg.DiffStripRegEx)
	}
	if got != want {
		return fmt.Errorf("diff\n%s\nwant\n%s", got, want)
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// kptSanitize is kpt's runner's view of stderr: function durations as
// "in 0s", the temporary directory's prefix gone.
func kptSanitize(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "[PASS]") || strings.HasPrefix(line, "[FAIL]") {
			if f := strings.Fields(line); len(f) == 4 && f[2] == "in" {
				f[3] = "0s"
				lines[i] = strings.Join(f, " ")
			}
		}
	}
	return regexp.MustCompile(`/?\w+/kpt-pipeline-e2e-\d+/`).ReplaceAllString(strings.Join(lines, "\n"), "")
}

// kptNormalizeDiff drops the lines matching strip and blurs index and hunk
// lines, as kpt's runner does with diffStripRegEx.
func kptNormalizeDiff(diff, strip string) string {
	re := regexp.MustCompile(strip)
	index := regexp.MustCompile(`^index [0-9a-f]+\.\.[0-9a-f]+`)
	hunk := regexp.MustCompile(`^@@ -\d+,\d+ \+\d+,\d+ @@`)
	var out []string
	for _, line := range strings.Split(diff, "\n") {
		if re.MatchString(line) {
			continue
		}
		line = index.ReplaceAllString(line, "index NORMALIZED")
		out = append(out, hunk.ReplaceAllString(line, "@@ NORMALIZED @@"))
	}
	return strings.Join(out, "\n")
}

// kubeSchemas is the schema directory the suites' validators read
// (testdata/kube-schemas, README there).
func kubeSchemas(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata", "kube-schemas"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
