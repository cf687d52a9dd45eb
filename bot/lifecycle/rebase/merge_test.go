package rebase

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/update"
)

const kf = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: basens
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: example
`

func quota(pods, cpu string) string {
	return `apiVersion: v1
kind: Namespace
metadata:
  name: example
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: default
  namespace: example
spec:
  hard:
    pods: "` + pods + `" # the tenant's pods
    requests.cpu: "` + cpu + `"
`
}

func pkg(files ...string) update.Files {
	out := update.Files{}
	for i := 0; i+1 < len(files); i += 2 {
		out[files[i]] = []byte(files[i+1])
	}
	return out
}

// The draft's own change and the revision's both land: a file only one
// side changed is taken byte for byte, a file both changed is merged
// resource by resource without kpt's bookkeeping.
func TestMergeKeepsBothSidesChanges(t *testing.T) {
	origin := pkg("Kptfile", kf, "namespace.yaml", quota("50", "8"), "README.md", "# basens\n")
	updated := pkg("Kptfile", kf, "namespace.yaml", quota("60", "8"), "README.md", "# basens, v2\n")
	local := pkg("Kptfile", kf, "namespace.yaml", quota("50", "16"), "README.md", "# basens\n", "extra.yaml", "kind: ConfigMap\nmetadata: {name: x}\n")
	m, err := Merge(Trees{Origin: origin, Updated: updated, Local: local})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Conflicts) != 0 || !m.Changed {
		t.Fatalf("conflicts %v, changed %t", m.Conflicts, m.Changed)
	}
	want := pkg("Kptfile", kf, "namespace.yaml", quota("60", "16"), "README.md", "# basens, v2\n", "extra.yaml", "kind: ConfigMap\nmetadata: {name: x}\n")
	for p, b := range want {
		if string(m.Files[p]) != string(b) {
			t.Errorf("%s:\n%s\nwant\n%s", p, m.Files[p], b)
		}
	}
	if len(m.Files) != len(want) {
		t.Errorf("files %v", m.Files)
	}
	if len(m.Resolved) != 1 || m.Resolved[0] != "namespace.yaml" {
		t.Errorf("resolved %v, want namespace.yaml", m.Resolved)
	}
}

// A field both sides changed to different values is a conflict: no files.
func TestMergeReportsConflicts(t *testing.T) {
	origin := pkg("Kptfile", kf, "namespace.yaml", quota("50", "8"))
	updated := pkg("Kptfile", kf, "namespace.yaml", quota("60", "8"))
	local := pkg("Kptfile", kf, "namespace.yaml", quota("70", "8"))
	m, err := Merge(Trees{Origin: origin, Updated: updated, Local: local})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Conflicts) != 1 || m.Files != nil || m.Changed {
		t.Fatalf("merged %+v", m)
	}
	c := m.Conflicts[0]
	if c.File != "namespace.yaml" || c.Field != "spec.hard.pods" || c.Local != "70" || c.Upstream != "60" {
		t.Fatalf("conflict %+v", c)
	}
}

// A draft that already has the revision's change (or only changes what
// the revision changed alike) is left as it is.
func TestMergeOfACurrentDraftChangesNothing(t *testing.T) {
	origin := pkg("Kptfile", kf, "namespace.yaml", quota("50", "8"))
	updated := pkg("Kptfile", kf, "namespace.yaml", quota("60", "8"))
	m, err := Merge(Trees{Origin: origin, Updated: updated, Local: updated})
	if err != nil || m.Changed || len(m.Conflicts) != 0 {
		t.Fatalf("merged %+v, %v", m, err)
	}
	// Nothing changed on either side: nothing to do either.
	if m, err := Merge(Trees{Origin: origin, Updated: origin, Local: origin}); err != nil || m.Changed {
		t.Fatalf("merged %+v, %v", m, err)
	}
}

// A file removed by the revision and untouched by the draft goes; one
// the draft removed stays removed.
func TestMergeRemovals(t *testing.T) {
	origin := pkg("Kptfile", kf, "a.yaml", "kind: A\nmetadata: {name: a}\n", "b.yaml", "kind: B\nmetadata: {name: b}\n")
	updated := pkg("Kptfile", kf, "b.yaml", "kind: B\nmetadata: {name: b}\n")
	local := pkg("Kptfile", kf, "a.yaml", "kind: A\nmetadata: {name: a}\n")
	m, err := Merge(Trees{Origin: origin, Updated: updated, Local: local})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files["Kptfile"] == nil {
		t.Fatalf("files %v, want the Kptfile alone", m.Files)
	}
}

// An upstream link the revision moved (an update landed) moves with it
// when the draft kept it, even when both changed the Kptfile.
func TestMergeMovesTheUpstreamLinkWithTheRevision(t *testing.T) {
	withUpstream := func(ref, desc string) string {
		return kf + `upstream:
  type: git
  git:
    repo: https://github.com/acme/catalog
    directory: /basens
    ref: basens/` + ref + `
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: https://github.com/acme/catalog
    directory: /basens
    ref: basens/` + ref + `
    commit: ` + strings.Repeat(ref[1:], 40) + `
info:
  description: ` + desc + `
`
	}
	origin := pkg("Kptfile", withUpstream("v1", "base"))
	updated := pkg("Kptfile", withUpstream("v2", "base"))
	local := pkg("Kptfile", withUpstream("v1", "edited"))
	m, err := Merge(Trees{Origin: origin, Updated: updated, Local: local})
	if err != nil || len(m.Conflicts) != 0 {
		t.Fatalf("%v %v", m.Conflicts, err)
	}
	f, err := kptfile.Parse(m.Files["Kptfile"])
	if err != nil {
		t.Fatal(err)
	}
	k := f.Kptfile()
	if k.UpstreamLock.Git.Ref != "basens/v2" || k.Upstream.Git.Ref != "basens/v2" || k.Info.Description != "edited" {
		t.Fatalf("Kptfile:\n%s", m.Files["Kptfile"])
	}
	// Both moved it, differently: a conflict.
	m, err = Merge(Trees{Origin: origin, Updated: updated, Local: pkg("Kptfile", withUpstream("v3", "edited"))})
	if err != nil || len(m.Conflicts) == 0 {
		t.Fatalf("two moves of the upstream: %+v %v", m, err)
	}
}
