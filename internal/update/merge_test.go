package update

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// loadCase reads a conformance case's three inputs and its options.
func loadCase(t *testing.T, name string) (origin, updated, local Files, opts Options) {
	t.Helper()
	dir := filepath.Join(conformanceDir, name)
	origin, updated, local = readDir(t, filepath.Join(dir, "origin")), readDir(t, filepath.Join(dir, "updated")), readDir(t, filepath.Join(dir, "local"))
	return origin, updated, local, caseOptions(t, readDir(t, filepath.Join(dir, "expected")), local)
}

func TestMergeOnConflictLocalKeepsLocalValue(t *testing.T) {
	o, u, l, opts := loadCase(t, "conflict-same-field")
	opts.OnConflict = SideLocal
	res, err := Merge(o, u, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	dep := string(res.Files["deployment.yaml"])
	if !strings.Contains(dep, "image: nginx:1.26-local # pinned by the platform team") {
		t.Errorf("local value not kept:\n%s", dep)
	}
	if len(res.Conflicts) != 1 {
		t.Fatalf("conflicts: %+v", res.Conflicts)
	}
	c := res.Conflicts[0]
	want := Conflict{File: "deployment.yaml", Resource: "apps/v1 Deployment web", Field: "spec.template.spec.containers[name=web].image",
		Local: "nginx:1.26-local", Upstream: "nginx:1.27", Taken: SideLocal}
	if c != want {
		t.Errorf("conflict %+v, want %+v", c, want)
	}
	// everything else is as with upstream
	up, err := Merge(o, u, l, Options{Ref: opts.Ref, Lock: opts.Lock})
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range up.Files {
		if p != "deployment.yaml" && string(res.Files[p]) != string(b) {
			t.Errorf("%s differs between onConflict local and upstream", p)
		}
	}
}

func TestMergeOnConflictFail(t *testing.T) {
	o, u, l, opts := loadCase(t, "conflict-same-field")
	opts.OnConflict = SideFail
	res, err := Merge(o, u, l, opts)
	if !errors.Is(err, ErrConflicts) {
		t.Fatalf("err = %v, want ErrConflicts", err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0].Taken != SideUpstream {
		t.Errorf("conflicts: %+v", res.Conflicts)
	}
	// without a conflict, fail changes nothing
	o, u, l, opts = loadCase(t, "image-bump-local-replicas")
	opts.OnConflict = SideFail
	if _, err := Merge(o, u, l, opts); err != nil {
		t.Errorf("no conflict but %v", err)
	}
}

func TestMergeFastForward(t *testing.T) {
	o, u, l, opts := loadCase(t, "image-bump-local-replicas")
	opts.Strategy = "fast-forward"
	if _, err := Merge(o, u, l, opts); !errors.Is(err, ErrLocalChanges) || !strings.Contains(err.Error(), "deployment.yaml") {
		t.Fatalf("local changes: err = %v, want ErrLocalChanges naming deployment.yaml", err)
	}
	// the local package as fetched (its one edit undone) fast-forwards
	o, u, l, opts = loadCase(t, "readme-changed-upstream")
	l["deployment.yaml"] = []byte(strings.Replace(string(l["deployment.yaml"]), "replicas: 2", "replicas: 1", 1))
	opts.Strategy = "fast-forward"
	res, err := Merge(o, u, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Files["README.md"]) != string(u["README.md"]) {
		t.Errorf("README not fast-forwarded:\n%s", res.Files["README.md"])
	}
	if !strings.Contains(string(res.Files["Kptfile"]), "updateStrategy: fast-forward") {
		t.Errorf("strategy override not recorded:\n%s", res.Files["Kptfile"])
	}
}

// TestMergeFastForwardIgnoresRenderStatus: a local package whose only
// change is what a render recorded in its Kptfile (kpt v1.0.0-beta.67's
// Rendered condition and render status) fast-forwards, as kpt's does
// (kpt #4488); another status condition is a local change.
func TestMergeFastForwardIgnoresRenderStatus(t *testing.T) {
	o, u, l, opts := loadCase(t, "readme-changed-upstream")
	l["deployment.yaml"] = []byte(strings.Replace(string(l["deployment.yaml"]), "replicas: 2", "replicas: 1", 1))
	rendered, err := kptfile.WriteRenderStatus(l["Kptfile"], kptfile.Condition{Type: kptfile.ConditionRendered,
		Status: kptfile.ConditionTrue, Reason: kptfile.ReasonRenderSuccess},
		&kptfile.RenderStatus{MutationSteps: []kptfile.PipelineStepResult{{Image: "set-labels:v0.2.1"}}})
	if err != nil {
		t.Fatal(err)
	}
	l["Kptfile"] = rendered
	opts.Strategy = "fast-forward"
	if _, err := Merge(o, u, l, opts); err != nil {
		t.Fatalf("a rendered package is not locally modified: %v", err)
	}
	l["Kptfile"] = []byte(strings.Replace(string(rendered), "type: Rendered", "type: Ready", 1))
	if _, err := Merge(o, u, l, opts); !errors.Is(err, ErrLocalChanges) || !strings.Contains(err.Error(), "Kptfile") {
		t.Fatalf("another condition: err = %v, want ErrLocalChanges naming the Kptfile", err)
	}
}

func TestMergeForceDeleteReplaceDropsLocalEdits(t *testing.T) {
	o, u, l, opts := loadCase(t, "local-adds-resource")
	opts.Strategy = "force-delete-replace"
	res, err := Merge(o, u, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Files["extra.yaml"]; ok {
		t.Error("local resource kept by force-delete-replace")
	}
	if !strings.Contains(string(res.Files["Kptfile"]), "ref: app/v2") {
		t.Errorf("lock not rewritten:\n%s", res.Files["Kptfile"])
	}
}

func TestMergeCopyMergeKeepsLocalFiles(t *testing.T) {
	o, u, l, opts := loadCase(t, "local-adds-resource")
	opts.Strategy = "copy-merge"
	res, err := Merge(o, u, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Files["extra.yaml"]; !ok {
		t.Error("copy-merge dropped a local file")
	}
	o, u, l, opts = loadCase(t, "upstream-deletes-untouched")
	opts.Strategy = "copy-merge"
	if res, err = Merge(o, u, l, opts); err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Files["configmap.yaml"]; ok {
		t.Error("copy-merge kept a file upstream removed")
	}
}

func TestMergeRefusesBadInput(t *testing.T) {
	o, u, l, opts := loadCase(t, "image-bump-local-replicas")
	for name, c := range map[string]struct {
		mutate func()
		want   string
	}{
		"yaml": {func() { u["deployment.yaml"] = []byte("apiVersion: v1\nkind: [\n") }, "updated/deployment.yaml: "},
		"kptfile": {func() {
			l["Kptfile"] = []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nbogus: 1\n")
		}, "local/Kptfile:5"},
		"no kptfile": {func() { delete(l, "Kptfile") }, "not a kpt package"},
		"path":       {func() { l["../escape.yaml"] = []byte("a: 1\n") }, "bad file path"},
	} {
		t.Run(name, func(t *testing.T) {
			o, u, l, opts = loadCase(t, "image-bump-local-replicas")
			c.mutate()
			_, err := Merge(o, u, l, opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := Merge(o, u, l, Options{Strategy: "rebase"}); err == nil {
		t.Error("unknown strategy accepted")
	}
	if _, err := Merge(o, u, l, Options{OnConflict: "ask"}); err == nil {
		t.Error("unknown onConflict accepted")
	}
}

func TestMergeDoesNotChangeInputs(t *testing.T) {
	o, u, l, opts := loadCase(t, "conflict-same-field")
	copies := []Files{{}, {}, {}}
	for i, f := range []Files{o, u, l} {
		for p, b := range f {
			copies[i][p] = append([]byte(nil), b...)
		}
	}
	if _, err := Merge(o, u, l, opts); err != nil {
		t.Fatal(err)
	}
	for i, f := range []Files{o, u, l} {
		if d := diffFiles(f, copies[i]); d != "" {
			t.Errorf("input %d changed:\n%s", i, d)
		}
	}
}
