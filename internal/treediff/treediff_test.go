package treediff_test

import (
	"reflect"
	"testing"

	"github.com/porchbot/porchbot/internal/treediff"
)

func TestFiles(t *testing.T) {
	old := map[string][]byte{"Kptfile": []byte("k"), "a.yaml": []byte("a"), "sub/Kptfile": []byte("s"), "z.yaml": []byte("z")}
	cur := map[string][]byte{"Kptfile": []byte("k2"), "sub/Kptfile": []byte("s"), "b.yaml": []byte("b"), "c.yaml": nil, "z.yaml": []byte("z2")}
	d := treediff.Files(old, cur)
	want := treediff.Diff{Added: []string{"b.yaml", "c.yaml"}, Modified: []string{"Kptfile", "z.yaml"}, Removed: []string{"a.yaml"}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("Files = %+v, want %+v", d, want)
	}
	if got := d.All(); !reflect.DeepEqual(got, []string{"Kptfile", "a.yaml", "b.yaml", "c.yaml", "z.yaml"}) {
		t.Errorf("All = %q", got)
	}
	wantChanges := []treediff.Change{{Path: "Kptfile", Kind: "modified"}, {Path: "a.yaml", Kind: "deleted"}, {Path: "b.yaml", Kind: "added"}, {Path: "c.yaml", Kind: "added"}, {Path: "z.yaml", Kind: "modified"}}
	if got := d.Changes(); !reflect.DeepEqual(got, wantChanges) {
		t.Errorf("Changes = %+v, want %+v", got, wantChanges)
	}
	if d.Empty() || !treediff.Files(old, old).Empty() || !treediff.Files(nil, nil).Empty() {
		t.Error("Empty")
	}
	if first := treediff.Files(nil, cur); len(first.Added) != len(cur) || first.Modified != nil || first.Removed != nil {
		t.Errorf("a first tree: %+v", first)
	}
}
