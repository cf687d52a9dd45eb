package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/porchbot/porchbot/internal/hub"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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
	if create.Name != RenderCheckName || create.HeadSHA != ckHead.String() || create.Status != "completed" ||
		create.Conclusion != "failure" || create.CompletedAt.IsZero() {
		t.Fatalf("create %+v", create)
	}
	if n := len(create.Output.Annotations); n != 50 {
		t.Fatalf("create carries %d annotations", n)
	}
	for i := 0; i < 20; i++ {
		if create.Output.Annotations[i].Level != LevelFailure {
			t.Fatalf("annotation %d is %s: failures go first", i, create.Output.Annotations[i].Level)
		}
	}
	if len(updates) != 2 || len(updates[0].Output.Annotations) != 50 || len(updates[1].Output.Annotations) != 20 {
		t.Fatalf("updates %d", len(updates))
	}
	for _, u := range updates {
		if u.Name != RenderCheckName || u.Output.Title != "t" || u.Output.Summary != "s" || u.Conclusion != "" {
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
	if !strings.Contains(create.Output.Summary, "37 more annotation(s) not shown") {
		t.Errorf("summary %q", create.Output.Summary)
	}
	if n := utf8.RuneCountInString(create.Output.Text); n > 65535 || !strings.HasSuffix(create.Output.Text, "characters)") {
		t.Errorf("text of %d runes", n)
	}
	// No annotations: one request, no updates.
	create, updates = CheckRequests(CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s"}, ckHead, time.Now())
	if len(updates) != 0 || create.Output.Text != "" || len(create.Output.Annotations) != 0 {
		t.Errorf("plain report: %+v %d", create.Output, len(updates))
	}
}

func TestCheckAnnotationColumnsOnlyOnOneLine(t *testing.T) {
	a := Annotation{Path: "f", StartLine: 3, EndLine: 3, StartColumn: 5, EndColumn: 2, Message: "m"}.Hub()
	if a.StartColumn != 5 || a.EndColumn != 5 || a.Level != LevelNotice {
		t.Errorf("%+v", a)
	}
	a = Annotation{Path: "f", StartLine: 3, EndLine: 4, StartColumn: 5, Title: "only a title"}.Hub()
	if a.StartColumn != 0 || a.Message != "only a title" {
		t.Errorf("%+v", a)
	}
	a = Annotation{Path: "f"}.Hub()
	if a.StartLine != 1 || a.EndLine != 1 {
		t.Errorf("%+v", a)
	}
}

type ckWriter struct {
	creates, updates int
	failUpdate       bool
}

func (w *ckWriter) CreateCheckRun(_ context.Context, _, _ string, c hub.CheckRunWrite) (hub.CheckRun, error) {
	w.creates++
	return hub.CheckRun{ID: 7, Name: c.Name}, nil
}

func (w *ckWriter) UpdateCheckRun(_ context.Context, _, _ string, id int64, _ hub.CheckRunWrite) (hub.CheckRun, error) {
	w.updates++
	if w.failUpdate {
		return hub.CheckRun{}, errors.New("boom")
	}
	return hub.CheckRun{ID: id}, nil
}

func TestPublishCheckOneCallPerBatch(t *testing.T) {
	w := &ckWriter{}
	run, err := PublishCheck(context.Background(), w, Repo{Owner: "o", Name: "r"}, ckHead,
		CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s", Annotations: ckAnnotations(101, "")})
	if err != nil || run.ID != 7 || w.creates != 1 || w.updates != 2 {
		t.Fatalf("run %v err %v creates %d updates %d", run, err, w.creates, w.updates)
	}
	w = &ckWriter{failUpdate: true}
	run, err = PublishCheck(context.Background(), w, Repo{Owner: "o", Name: "r"}, ckHead,
		CheckReport{Name: "n", Conclusion: ConclusionSuccess, Title: "t", Summary: "s", Annotations: ckAnnotations(51, "")})
	if err == nil || run.ID != 7 || !strings.Contains(err.Error(), "boom") {
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
		line, col := PositionInFile(YAMLDocs(data), tc.index, tc.ref, tc.field)
		if line != tc.line || col != tc.col {
			t.Errorf("%s: %q at %d:%d, want %d:%d", tc.desc, tc.field, line, col, tc.line, tc.col)
		}
	}
	if line, _ := PositionInFile(YAMLDocs([]byte("not: [valid")), 0, nil, "a.b"); line != 1 {
		t.Errorf("invalid YAML: line %d", line)
	}
}

func TestCheckSplitFieldPath(t *testing.T) {
	got := strings.Join(SplitFieldPath("a.b[0].c[name=x.y].d"), "|")
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
		line, ok := FunctionPosition(kf, tc.kind, tc.image, tc.exec, tc.nth)
		if line != tc.line || ok != tc.ok {
			t.Errorf("%+v: got %d %v", tc, line, ok)
		}
	}
}
