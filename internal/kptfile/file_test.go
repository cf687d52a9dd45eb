package kptfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const commented = `# The UPF package.
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf # the package name
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  # one line
  description: User plane function
  keywords: [5g, network]
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/name: upf
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1 # namespace
      configMap:
        namespace: upf
`

func mustParse(t *testing.T, s string) *File {
	t.Helper()
	f, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

func mustBytes(t *testing.T, f *File) string {
	t.Helper()
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseTypedView(t *testing.T) {
	f := mustParse(t, commented)
	k := f.Kptfile()
	if k.APIVersion != APIVersion || k.Kind != Kind || k.Metadata.Name != "upf" || k.Info.Description != "User plane function" ||
		strings.Join(k.Info.Keywords, ",") != "5g,network" || len(k.Pipeline.Mutators) != 2 ||
		k.Pipeline.Mutators[1].ConfigMap["namespace"] != "upf" {
		t.Errorf("typed view: %+v", k)
	}
	if got := mustBytes(t, f); got != commented {
		t.Errorf("unedited Bytes changed the file:\n%s", got)
	}
}

func TestEditsKeepCommentsOrderAndStyle(t *testing.T) {
	f := mustParse(t, commented)
	if err := f.SetDescription("User plane: edge"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetName("upf-edge"); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"name: upf # the package name", "name: upf-edge # the package name",
		"description: User plane function", "description: 'User plane: edge'",
	).Replace(commented)
	if got := mustBytes(t, f); got != want {
		t.Errorf("edited =\n%s\nwant\n%s", got, want)
	}
	if !f.Edited() || f.Description() != "User plane: edge" || f.Name() != "upf-edge" {
		t.Errorf("typed view not updated: %q %q", f.Name(), f.Description())
	}
}

func TestSetUpstreamWritesKptOrder(t *testing.T) {
	f := New("down", DefaultDescription)
	if err := f.SetUpstreamLock(&UpstreamLock{Git: &GitLock{Repo: "https://github.com/acme/catalog", Directory: "/network/upf", Ref: "network/upf/v2", Commit: "0123456789abcdef0123456789abcdef01234567"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetUpstream(&Upstream{Git: &Git{Repo: "https://github.com/acme/catalog", Directory: "/network/upf", Ref: "network/upf/v2"}, UpdateStrategy: ResourceMerge}); err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: down
  annotations:
    config.kubernetes.io/local-config: "true"
upstream:
  type: git
  git:
    repo: https://github.com/acme/catalog
    directory: /network/upf
    ref: network/upf/v2
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: https://github.com/acme/catalog
    directory: /network/upf
    ref: network/upf/v2
    commit: 0123456789abcdef0123456789abcdef01234567
info:
  description: sample description
`
	if got := mustBytes(t, f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Updating the lock changes values in place.
	before := mustBytes(t, f)
	if err := f.SetUpstreamLock(&UpstreamLock{Type: OriginGit, Git: &GitLock{Repo: "https://github.com/acme/catalog", Directory: "/network/upf", Ref: "network/upf/v3", Commit: "fedcba9876543210fedcba9876543210fedcba98"}}); err != nil {
		t.Fatal(err)
	}
	after := mustBytes(t, f)
	if strings.Count(after, "\n") != strings.Count(before, "\n") || !strings.Contains(after, "ref: network/upf/v3\n    commit: fedcba") {
		t.Errorf("lock update:\n%s", after)
	}
	if err := f.SetUpstream(nil); err != nil {
		t.Fatal(err)
	}
	if err := f.SetUpstreamLock(nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := New("down", DefaultDescription).Bytes(); mustBytes(t, f) != string(got) {
		t.Errorf("removing upstream left:\n%s", mustBytes(t, f))
	}
}

func TestSetUpstreamRefusesBadStrategy(t *testing.T) {
	f := New("x", "")
	before := mustBytes(t, f)
	err := f.SetUpstream(&Upstream{Git: &Git{Repo: "r"}, UpdateStrategy: "merge"})
	var verr *ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "upstream.updateStrategy") {
		t.Fatalf("err = %v", err)
	}
	if mustBytes(t, f) != before || f.Edited() {
		t.Error("a refused edit changed the file")
	}
}

func TestReadinessGatesAndConditions(t *testing.T) {
	f := mustParse(t, commented)
	for i := 0; i < 2; i++ {
		if err := f.AddReadinessGate("nephio.org/Ready"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.AddReadinessGate("other"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCondition(Condition{Type: "nephio.org/Ready", Status: ConditionFalse, Reason: "Pending"}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCondition(Condition{Type: "nephio.org/Ready", Status: ConditionTrue}); err != nil {
		t.Fatal(err)
	}
	got := mustBytes(t, f)
	if !strings.Contains(got, "  readinessGates:\n    - conditionType: nephio.org/Ready\n    - conditionType: other\npipeline:") {
		t.Errorf("readiness gates not after keywords, wide-indented:\n%s", got)
	}
	if !strings.HasSuffix(got, "status:\n  conditions:\n    - type: nephio.org/Ready\n      status: \"True\"\n") {
		t.Errorf("condition not updated in place:\n%s", got)
	}
	k := f.Kptfile()
	if len(k.Info.ReadinessGates) != 2 || len(k.Status.Conditions) != 1 || k.Status.Conditions[0].Status != ConditionTrue {
		t.Errorf("typed view: %+v %+v", k.Info, k.Status)
	}
	if c, ok := k.Status.Condition("nephio.org/Ready"); !ok || c.Status != ConditionTrue || c.Reason != "" {
		t.Errorf("Condition() = %+v %v", c, ok)
	}
	if err := f.RemoveReadinessGate("other"); err != nil {
		t.Fatal(err)
	}
	if err := f.RemoveReadinessGate("nephio.org/Ready"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(mustBytes(t, f), "readinessGates") {
		t.Error("empty readinessGates left behind")
	}
}

func TestNoOpEditsKeepBytes(t *testing.T) {
	f := mustParse(t, commented)
	steps := []error{
		f.SetName("upf"),
		f.SetDescription("User plane function"),
		f.SetAnnotation(LocalConfigAnnotation, "true"),
		f.RemoveReadinessGate("absent"),
		f.PrependPipeline(Pipeline{}),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if f.Edited() || mustBytes(t, f) != commented {
		t.Error("no-op edits changed the file")
	}
}

func TestPrependPipelineAndMetadata(t *testing.T) {
	f := mustParse(t, commented)
	err := f.PrependPipeline(Pipeline{
		Mutators:   []Function{{Image: "gcr.io/kpt-fn/set-namespace:v0.4.1", ConfigMap: map[string]string{"namespace": "edge-1"}}},
		Validators: []Function{{Image: "gcr.io/kpt-fn/kubeval:v0.3", Selectors: []Selector{{Kind: "Deployment"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetLabel("tier", "edge"); err != nil {
		t.Fatal(err)
	}
	k := f.Kptfile()
	if len(k.Pipeline.Mutators) != 3 || k.Pipeline.Mutators[0].ConfigMap["namespace"] != "edge-1" ||
		len(k.Pipeline.Validators) != 1 || k.Pipeline.Validators[0].Selectors[0].Kind != "Deployment" ||
		k.Metadata.Labels["tier"] != "edge" {
		t.Errorf("typed view: %+v", k)
	}
	got := mustBytes(t, f)
	if !strings.Contains(got, "  name: upf # the package name\n  labels:\n    tier: edge\n  annotations:") {
		t.Errorf("labels not between name and annotations:\n%s", got)
	}
	if !strings.Contains(got, "    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: edge-1\n    - image: gcr.io/kpt-fn/set-labels") {
		t.Errorf("mutator not prepended:\n%s", got)
	}
}

func TestEditEscapeHatch(t *testing.T) {
	f := mustParse(t, commented)
	err := f.Edit(func(doc *yaml.RNode) error {
		return doc.PipeE(yaml.SetField("bogus", yaml.NewScalarRNode("x")))
	})
	if err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) || f.Edited() {
		t.Errorf("invalid edit: err=%v edited=%v", err, f.Edited())
	}
	err = f.Edit(func(doc *yaml.RNode) error {
		return doc.PipeE(yaml.Lookup("info"), yaml.SetField("license", yaml.NewScalarRNode("Apache-2.0")))
	})
	if err != nil || f.Kptfile().Info.License != "Apache-2.0" {
		t.Errorf("valid edit: %v, %+v", err, f.Kptfile().Info)
	}
}

func TestParseRepositoryTestdata(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/forge/catalog/*/Kptfile")
	more, _ := filepath.Glob("../../testdata/forge/catalog/*/*/Kptfile")
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Skip("no Kptfiles in testdata")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseFile(p, data); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
