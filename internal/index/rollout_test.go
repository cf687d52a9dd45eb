package index

import (
	"reflect"
	"strings"
	"testing"
)

// TestPackageRolloutKeepsWhatIsUnknown: the rollouts given are the whole
// truth (a package left out has none); a nil entry, or no rollouts at
// all (offline), keeps what the previous index said.
func TestPackageRolloutKeepsWhatIsUnknown(t *testing.T) {
	prev := &Rollout{Revision: 1, State: "done", Downstreams: 3, Merged: 3, Healthy: 3}
	now := &Rollout{Revision: 2, State: "stopped", Downstreams: 3, Merged: 2, Healthy: 1, Failed: 1}
	for _, c := range []struct {
		name string
		opts Options
		want *Rollout
	}{
		{"known", Options{Rollouts: map[string]*Rollout{"network/upf": now}}, now},
		{"no rollout any more", Options{Rollouts: map[string]*Rollout{}}, nil},
		{"not read: kept", Options{Rollouts: map[string]*Rollout{"network/upf": nil}}, prev},
		{"offline build: kept", Options{}, prev},
	} {
		if got := packageRollout(c.opts, prev, "network/upf"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if got := packageRollout(Options{}, nil, "network/upf"); got != nil {
		t.Errorf("no previous rollout, offline: %+v", got)
	}
}

// TestRolloutEncoding: a rollout is written with its counts, zeros
// included, between the downstreams and the revisions, and read back; an
// index written before rollouts (no field) reads as before.
func TestRolloutEncoding(t *testing.T) {
	idx := &Index{APIVersion: APIVersion, Kind: Kind, Repository: "acme/catalog", Packages: []Package{{
		Name:        "network/upf",
		Downstreams: []Downstream{{Repository: "acme/edge-1", Package: "upf", Revision: 2}},
		Rollout:     &Rollout{Revision: 2, State: "rolling", Downstreams: 12, Merged: 2, Healthy: 1},
		Revisions:   []Revision{{Revision: 2, Tag: "network/upf/v2", Commit: "c2", Digest: "sha256:x"}},
	}}}
	data, err := Encode(idx)
	if err != nil {
		t.Fatal(err)
	}
	want := "  rollout:\n    revision: 2\n    state: rolling\n    downstreams: 12\n    merged: 2\n    healthy: 1\n    failed: 0\n  revisions:\n"
	if !strings.Contains(string(data), want) {
		t.Fatalf("the encoded rollout is not\n%s\nin\n%s", want, data)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Packages[0].Rollout, idx.Packages[0].Rollout) {
		t.Fatalf("read back %+v, want %+v", back.Packages[0].Rollout, idx.Packages[0].Rollout)
	}
	old := strings.Replace(string(data), want, "  revisions:\n", 1)
	back, err = Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if back.Packages[0].Rollout != nil || len(back.Packages[0].Revisions) != 1 {
		t.Fatalf("an index without rollouts read as %+v", back.Packages[0])
	}
}
