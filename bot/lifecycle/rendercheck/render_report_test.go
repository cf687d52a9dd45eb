package rendercheck

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/treediff"
)

// rrHead is the commit the reports in these tests are made on.
var rrHead = plumbing.NewHash(strings.Repeat("1234567890", 4))

func TestCheckStepsTable(t *testing.T) {
	steps := []render.Step{
		{Package: ".", Image: "gcr.io/kpt-fn/set-labels:v0.2.0", Kind: render.Mutator, Status: render.StepOK, Release: "v0.2.0",
			Duration: 1500 * time.Microsecond, Results: []*framework.Result{{Message: "set 2 | labels\nok"}}},
		{Package: ".", Image: "gcr.io/kpt-fn/set-namespace:latest", Kind: render.Mutator, Status: render.StepOK, Release: "v0.4.1",
			ReleaseNote: "latest is v0.4.1, the newest release porchbot knows", Duration: time.Millisecond},
		{Package: "sub", Name: "guard", Exec: "check <x>", Kind: render.Validator, Guardrail: true,
			Status: render.StepSkipped, Message: "skipped: exec"},
		{Package: ".", Image: "gcr.io/kpt-fn/starlark:v0.5.0", Kind: render.Validator, Status: render.StepFailed,
			Message: "boom", Results: []*framework.Result{{Message: "boom", Severity: framework.Error,
				ResourceRef: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{Kind: "Deployment"}, NameMeta: yaml.NameMeta{Name: "web"}},
				File:        &framework.File{Path: "d.yaml"}, Field: &framework.Field{Path: "spec.replicas"}}}},
	}
	got := StepsTable("pkgs/p", steps)
	want := "| Package | Function | Kind | Status | Duration | Results |\n" +
		"|---|---|---|---|---|---|\n" +
		"| `pkgs/p` | `gcr.io/kpt-fn/set-labels:v0.2.0` | mutator | ✅ passed | 2ms | \\[info\\] set 2 \\| labels ok |\n" +
		"| `pkgs/p` | `gcr.io/kpt-fn/set-namespace:latest` ran as `v0.4.1` | mutator | ✅ passed | 1ms | \\[info\\] latest is v0\\.4\\.1, the newest release porchbot knows |\n" +
		"| `pkgs/p/sub` | `check <x>` (guard) | validator (repository guardrail) | ⏭️ skipped | — | skipped: exec |\n" +
		"| `pkgs/p` | `gcr.io/kpt-fn/starlark:v0.5.0` | validator | ❌ failed | <1ms | \\[error\\] boom \\(Deployment web, d\\.yaml, spec\\.replicas\\) |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func ckResult(steps ...render.Step) *render.Result {
	return &render.Result{Steps: steps, Packages: 1}
}

func TestRenderReportConclusions(t *testing.T) {
	files := map[string][]byte{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"),
		"a.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")}
	ok := ckResult(render.Step{Package: ".", Image: "gcr.io/kpt-fn/set-namespace:v0.4.1", Kind: render.Mutator, Status: render.StepOK})
	changes := []treediff.Change{{Path: "a.yaml", Kind: "modified"}, {Path: "new.yaml", Kind: "added"}}
	for _, tc := range []struct {
		desc  string
		f     renderFacts
		concl string
		title string
		anns  int
	}{
		{"missing", renderFacts{Missing: true}, core.ConclusionNeutral, "Package p not found", 0},
		{"rendered", renderFacts{Result: ok}, core.ConclusionSuccess, "p is rendered", 0},
		{"pushed", renderFacts{Result: ok, Pushed: true, Changes: changes}, core.ConclusionSuccess, "Rendered p: pushed 2 changed file(s)", 0},
		{"differs", renderFacts{Result: ok, Changes: changes}, core.ConclusionFailure, "p is not rendered: 2 file(s) differ", 1},
		{"loop", renderFacts{Result: ok, Changes: changes, Loop: true}, core.ConclusionFailure, "Render of p is not stable", 1},
		{"error", renderFacts{Result: ckResult(), Err: &render.ValidateError{Field: "pipeline.mutators[0].configPath", Reason: "x"}},
			core.ConclusionFailure, "Render of p failed", 1},
		{"too large", renderFacts{Err: errors.New("tree exceeds limits")}, core.ConclusionFailure, "Render of p failed", 1},
	} {
		tc.f.Package, tc.f.Dir, tc.f.Head, tc.f.Rendered = "p", "pkgs/p", rrHead, rrHead
		if tc.f.Files == nil && !tc.f.Missing {
			tc.f.Files = files
		}
		rep := renderReport(tc.f)
		if rep.Name != core.RenderCheckName || rep.Conclusion != tc.concl || rep.Title != tc.title || len(rep.Annotations) != tc.anns {
			t.Errorf("%s: %s %q %d annotations %+v", tc.desc, rep.Conclusion, rep.Title, len(rep.Annotations), rep.Annotations)
		}
		for _, a := range rep.Annotations {
			if !strings.HasPrefix(a.Path, "pkgs/p/") {
				t.Errorf("%s: annotation path %q must be the repository path", tc.desc, a.Path)
			}
		}
		if len(tc.f.Changes) > 0 && !strings.Contains(rep.Summary, "- `pkgs/p/new.yaml` (added)") {
			t.Errorf("%s: summary lacks the changed files:\n%s", tc.desc, rep.Summary)
		}
	}
}

func TestRenderDiffFilesAndPkgFSRoundTrip(t *testing.T) {
	in := map[string][]byte{"Kptfile": []byte("k"), "sub/Kptfile": []byte("s"), "a.yaml": []byte("a")}
	fs, err := core.NewPkgFS("pkgs/p", in)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Root != "/pkgs/p" {
		t.Errorf("root %q", fs.Root)
	}
	back, err := fs.Files()
	if err != nil || len(treediff.Files(in, back).Changes()) != 0 {
		t.Fatalf("round trip: %v %v", back, err)
	}
	got := treediff.Files(in, map[string][]byte{"Kptfile": []byte("k2"), "sub/Kptfile": []byte("s"), "b.yaml": []byte("b")}).Changes()
	want := []treediff.Change{{Path: "Kptfile", Kind: "modified"}, {Path: "a.yaml", Kind: "deleted"}, {Path: "b.yaml", Kind: "added"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("diff %v, want %v", got, want)
	}
}

func TestRenderOptionsExecPolicy(t *testing.T) {
	cfg := config.Default()
	cfg.Functions.Exec = map[string]string{"a": "/opt/fn/a", "b": "/opt/fn/b", "c": "/opt/fn/c"}
	limits := config.ServerLimits{ExecAllowlist: []string{"a", "b=/elsewhere/b", " c = /opt/fn/c "}}
	ropts, hint := renderOptionsFor(cfg, false, RenderOptions{Limits: limits})
	if !ropts.AllowExec || strings.Join(ropts.ExecAllowlist, ",") != "/opt/fn/a,a" {
		t.Errorf("allowlist %v", ropts.ExecAllowlist)
	}
	if !strings.Contains(hint, ": a.") {
		t.Errorf("hint %q", hint)
	}
	proc, err := ropts.Resolve(render.Function{Exec: "a --x"})
	if ef, ok := proc.(*render.ExecFunction); err != nil || !ok || ef.Path != "/opt/fn/a" || strings.Join(ef.Args, " ") != "--x" {
		t.Errorf("resolve a: %#v %v", proc, err)
	}
	if _, err := ropts.Resolve(render.Function{Exec: "b"}); err == nil {
		t.Error("b must not resolve")
	}
	if _, err := ropts.Resolve(render.Function{Image: "set-namespace:v0.4.1"}); err != nil {
		t.Errorf("built-in: %v", err)
	}
	ropts, hint = renderOptionsFor(cfg, true, RenderOptions{Limits: limits})
	if ropts.AllowExec || !strings.Contains(hint, "forks") {
		t.Errorf("fork: %v %q", ropts.AllowExec, hint)
	}
	_, hint = renderOptionsFor(cfg, false, RenderOptions{})
	if !strings.Contains(hint, "No exec function may run") {
		t.Errorf("strict server: %q", hint)
	}
}

func TestRenderFunctionsFromConfig(t *testing.T) {
	cfg, err := config.Parse(config.Path, []byte(`apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
render:
  validators:
    - image: gcr.io/kpt-fn/starlark:v0.5.0
      name: guard
      configMap: {source: "pass"}
      selectors: [{kind: Deployment}]
      exclude: [{name: legacy}]
`), config.ServerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	ropts, _ := renderOptionsFor(cfg, false, RenderOptions{})
	got := ropts.ExtraValidators
	if len(got) != 1 || got[0].Image != "gcr.io/kpt-fn/starlark:v0.5.0" || got[0].Name != "guard" ||
		got[0].ConfigMap["source"] != "pass" || got[0].Selectors[0].Kind != "Deployment" || got[0].Exclude[0].Name != "legacy" {
		t.Errorf("%+v", got)
	}
}

func TestConfigAnnotationsAndReport(t *testing.T) {
	problems := []config.Problem{{File: config.Path, Line: 4, Column: 13, Field: "approvals.required", Message: "must be an integer"},
		{Line: 0, Column: 0, Message: "the file is empty"}}
	anns := ConfigAnnotations(problems)
	if len(anns) != 2 || anns[0].StartLine != 4 || anns[0].StartColumn != 13 || anns[0].Title != "approvals.required" ||
		anns[1].Path != config.Path || anns[1].StartLine != 1 || anns[1].Title != "invalid configuration" {
		t.Errorf("%+v", anns)
	}
	rep := configReport(nil, &config.ValidationError{Problems: problems}, rrHead, "main")
	if rep.Conclusion != core.ConclusionFailure || rep.Title != ".github/porchbot.yaml has 2 problems" || len(rep.Annotations) != 2 ||
		!strings.Contains(rep.Summary, "- `.github/porchbot.yaml:4:13`: must be an integer") {
		t.Errorf("%+v", rep)
	}
	rep = configReport(config.Default(), nil, rrHead, "main")
	if rep.Conclusion != core.ConclusionSuccess || !strings.Contains(rep.Summary, "| approvals | 1 from anyone with write access") {
		t.Errorf("%+v", rep)
	}
}
