package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/treediff"
)

// Unit tests of the pure parts of the check steps (formatting, positions,
// batching, exec policy); the steps themselves are tested against the
// local forge in the lifecycle_test files.

var ckHead = plumbing.NewHash(strings.Repeat("1234567890", 4))

func ckAnnotations(n int, level string) []Annotation {
	out := make([]Annotation, n)
	for i := range out {
		out[i] = Annotation{Path: fmt.Sprintf("p/f%03d.yaml", i), StartLine: i + 1, Level: level, Message: "m"}
	}
	return out
}

func TestCheckRequestsBatchesAnnotationsMostSevereFirst(t *testing.T) {
	anns := append(ckAnnotations(100, LevelNotice), ckAnnotations(20, LevelFailure)...)
	create, updates := CheckRequests(CheckReport{Name: RenderCheckName, Conclusion: ConclusionFailure, Title: "t",
		Summary: "s", Text: "x", Annotations: anns}, ckHead, time.Unix(0, 0))
	if create.Name != RenderCheckName || create.HeadSHA != ckHead.String() || create.GetStatus() != "completed" ||
		create.GetConclusion() != "failure" || create.CompletedAt == nil {
		t.Fatalf("create %+v", create)
	}
	if n := len(create.Output.Annotations); n != 50 {
		t.Fatalf("create carries %d annotations", n)
	}
	for i := 0; i < 20; i++ {
		if create.Output.Annotations[i].GetAnnotationLevel() != LevelFailure {
			t.Fatalf("annotation %d is %s: failures go first", i, create.Output.Annotations[i].GetAnnotationLevel())
		}
	}
	if len(updates) != 2 || len(updates[0].Output.Annotations) != 50 || len(updates[1].Output.Annotations) != 20 {
		t.Fatalf("updates %d", len(updates))
	}
	for _, u := range updates {
		if u.Name != RenderCheckName || u.Output.GetTitle() != "t" || u.Output.GetSummary() != "s" || u.Conclusion != nil {
			t.Errorf("update %+v", u)
		}
	}
}

func TestCheckRequestsCapsAnnotationsAndOutput(t *testing.T) {
	create, updates := CheckRequests(CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s",
		Text: strings.Repeat("é", 70000), Annotations: ckAnnotations(MaxAnnotations+37, LevelWarning)}, ckHead, time.Now())
	sent := len(create.Output.Annotations)
	for _, u := range updates {
		sent += len(u.Output.Annotations)
	}
	if sent != MaxAnnotations || len(updates) != 3 {
		t.Errorf("sent %d annotations in %d updates", sent, len(updates))
	}
	if !strings.Contains(create.Output.GetSummary(), "37 more annotation(s) not shown") {
		t.Errorf("summary %q", create.Output.GetSummary())
	}
	if n := utf8.RuneCountInString(create.Output.GetText()); n > 65535 || !strings.HasSuffix(create.Output.GetText(), "characters)") {
		t.Errorf("text of %d runes", n)
	}
	// No annotations: one request, no updates.
	create, updates = CheckRequests(CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s"}, ckHead, time.Now())
	if len(updates) != 0 || create.Output.Text != nil || len(create.Output.Annotations) != 0 {
		t.Errorf("plain report: %+v %d", create.Output, len(updates))
	}
}

func TestCheckAnnotationColumnsOnlyOnOneLine(t *testing.T) {
	a := Annotation{Path: "f", StartLine: 3, EndLine: 3, StartColumn: 5, EndColumn: 2, Message: "m"}.github()
	if a.GetStartColumn() != 5 || a.GetEndColumn() != 5 || a.GetAnnotationLevel() != LevelNotice {
		t.Errorf("%+v", a)
	}
	a = Annotation{Path: "f", StartLine: 3, EndLine: 4, StartColumn: 5, Title: "only a title"}.github()
	if a.StartColumn != nil || a.GetMessage() != "only a title" {
		t.Errorf("%+v", a)
	}
	a = Annotation{Path: "f"}.github()
	if a.GetStartLine() != 1 || a.GetEndLine() != 1 {
		t.Errorf("%+v", a)
	}
}

type ckWriter struct {
	creates, updates int
	failUpdate       bool
}

func (w *ckWriter) CreateCheckRun(_ context.Context, _, _ string, opts github.CreateCheckRunOptions) (*github.CheckRun, *github.Response, error) {
	w.creates++
	return &github.CheckRun{ID: github.Int64(7), Name: github.String(opts.Name)}, nil, nil
}

func (w *ckWriter) UpdateCheckRun(_ context.Context, _, _ string, id int64, _ github.UpdateCheckRunOptions) (*github.CheckRun, *github.Response, error) {
	w.updates++
	if w.failUpdate {
		return nil, nil, errors.New("boom")
	}
	return &github.CheckRun{ID: github.Int64(id)}, nil, nil
}

func TestPublishCheckOneCallPerBatch(t *testing.T) {
	w := &ckWriter{}
	run, err := publishCheck(context.Background(), w, Repo{Owner: "o", Name: "r"}, ckHead,
		CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s", Annotations: ckAnnotations(101, "")})
	if err != nil || run.GetID() != 7 || w.creates != 1 || w.updates != 2 {
		t.Fatalf("run %v err %v creates %d updates %d", run, err, w.creates, w.updates)
	}
	w = &ckWriter{failUpdate: true}
	run, err = publishCheck(context.Background(), w, Repo{Owner: "o", Name: "r"}, ckHead,
		CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s", Annotations: ckAnnotations(51, "")})
	if err == nil || run.GetID() != 7 || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failed update: %v %v", run, err)
	}
}

const ckMulti = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  a: b
---
# a comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: side
          image: busybox
        - name: web
          image: nginx
          args: [--a, -jar]
`

func TestCheckPositionInFile(t *testing.T) {
	data := []byte(ckMulti)
	dep := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{Kind: "Deployment"}, NameMeta: yaml.NameMeta{Name: "web"}}
	for _, tc := range []struct {
		index     int
		ref       *yaml.ResourceIdentifier
		field     string
		line, col int
		desc      string
	}{
		{1, nil, "spec.replicas", 17, 3, "by index"},
		{-1, dep, "spec.template.spec.containers[1].image", 24, 11, "by ref, list index"},
		{0, dep, "spec.template.spec.containers[name=web].image", 24, 11, "ref wins over a wrong index"},
		{0, nil, "spec.template.spec.containers.0.image", 22, 11, "index 0 without ref: the document holding the field"},
		{1, nil, "spec.template.spec.containers[name=web].args[=-jar]", 25, 23, "list value match"},
		{0, nil, "metadata.annotations.config.kubernetes.io/local-config", 6, 5, "dotted key"},
		{1, nil, "spec.template.spec.volumes", 19, 5, "partial: deepest part found"},
		{1, nil, "spec.replicas # kpt-set: ${r}", 17, 3, "comment suffix"},
		{0, nil, "", 1, 1, "no field: the document"},
		{1, nil, "", 11, 1, "second document starts after its comment"},
	} {
		line, col := positionInFile(yamlDocs(data), tc.index, tc.ref, tc.field)
		if line != tc.line || col != tc.col {
			t.Errorf("%s: %q at %d:%d, want %d:%d", tc.desc, tc.field, line, col, tc.line, tc.col)
		}
	}
	if line, _ := positionInFile(yamlDocs([]byte("not: [valid")), 0, nil, "a.b"); line != 1 {
		t.Errorf("invalid YAML: line %d", line)
	}
}

func TestCheckSplitFieldPath(t *testing.T) {
	got := strings.Join(splitFieldPath("a.b[0].c[name=x.y].d"), "|")
	if got != "a|b|[0]|c|[name=x.y]|d" {
		t.Errorf("got %s", got)
	}
}

func TestCheckFunctionPosition(t *testing.T) {
	kf := []byte(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: x
pipeline:
  mutators:
    - image: set-labels:v0.2.0
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
    - exec: ./fn --flag
  validators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
`)
	for _, tc := range []struct {
		kind, image, exec string
		nth, line         int
		ok                bool
	}{
		{"mutator", "gcr.io/kpt-fn/set-labels:v0.2.0", "", 0, 7, true},
		{"mutator", "gcr.io/kpt-fn/set-labels:v0.2.0", "", 1, 8, true},
		{"mutator", "", "./fn --flag", 0, 9, true},
		{"validator", "gcr.io/kpt-fn/set-labels:v0.2.0", "", 0, 11, true},
		{"validator", "gcr.io/kpt-fn/starlark:v0.5.0", "", 0, 0, false},
	} {
		line, ok := functionPosition(kf, tc.kind, tc.image, tc.exec, tc.nth)
		if line != tc.line || ok != tc.ok {
			t.Errorf("%+v: got %d %v", tc, line, ok)
		}
	}
}

func TestCheckStepsTable(t *testing.T) {
	steps := []render.Step{
		{Package: ".", Image: "gcr.io/kpt-fn/set-labels:v0.2.0", Kind: render.Mutator, Status: render.StepOK,
			Duration: 1500 * time.Microsecond, Results: []*framework.Result{{Message: "set 2 | labels\nok"}}},
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
		{"missing", renderFacts{Missing: true}, ConclusionNeutral, "Package p not found", 0},
		{"rendered", renderFacts{Result: ok}, ConclusionSuccess, "p is rendered", 0},
		{"pushed", renderFacts{Result: ok, Pushed: true, Changes: changes}, ConclusionSuccess, "Rendered p: pushed 2 changed file(s)", 0},
		{"differs", renderFacts{Result: ok, Changes: changes}, ConclusionFailure, "p is not rendered: 2 file(s) differ", 1},
		{"loop", renderFacts{Result: ok, Changes: changes, Loop: true}, ConclusionFailure, "Render of p is not stable", 1},
		{"error", renderFacts{Result: ckResult(), Err: &render.ValidateError{Field: "pipeline.mutators[0].configPath", Reason: "x"}},
			ConclusionFailure, "Render of p failed", 1},
		{"too large", renderFacts{Err: errors.New("tree exceeds limits")}, ConclusionFailure, "Render of p failed", 1},
	} {
		tc.f.Package, tc.f.Dir, tc.f.Head, tc.f.Rendered = "p", "pkgs/p", ckHead, ckHead
		if tc.f.Files == nil && !tc.f.Missing {
			tc.f.Files = files
		}
		rep := renderReport(tc.f)
		if rep.Name != RenderCheckName || rep.Conclusion != tc.concl || rep.Title != tc.title || len(rep.Annotations) != tc.anns {
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
	fs, err := newPkgFS("pkgs/p", in)
	if err != nil {
		t.Fatal(err)
	}
	if fs.root != "/pkgs/p" {
		t.Errorf("root %q", fs.root)
	}
	back, err := fs.files()
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
	rep := configReport(nil, &config.ValidationError{Problems: problems}, ckHead, "main")
	if rep.Conclusion != ConclusionFailure || rep.Title != ".github/porchbot.yaml has 2 problems" || len(rep.Annotations) != 2 ||
		!strings.Contains(rep.Summary, "- `.github/porchbot.yaml:4:13`: must be an integer") {
		t.Errorf("%+v", rep)
	}
	rep = configReport(config.Default(), nil, ckHead, "main")
	if rep.Conclusion != ConclusionSuccess || !strings.Contains(rep.Summary, "| approvals | 1 from anyone with write access") {
		t.Errorf("%+v", rep)
	}
}
