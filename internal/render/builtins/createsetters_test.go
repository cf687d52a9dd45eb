package builtins

import (
	"strings"
	"testing"
)

// Setters that overlap tag a value as the release does with its setters in
// the config's order: sorted by name-in-value, which puts b first here, so
// b's value is replaced before a's can be.
func TestCreateSettersOverlappingSetters(t *testing.T) {
	fc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  a: nginx\n  b: nginx-1\n"
	files := map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  image: nginx-1.7\n"}
	out, results, err := render(t, "create-setters", fc, files)
	if err != nil {
		t.Fatal(err)
	}
	if want := "image: nginx-1.7 # kpt-set: ${b}.7\n"; !strings.Contains(out["cm.yaml"], want) {
		t.Errorf("want %q in:\n%s", want, out["cm.yaml"])
	}
	if len(results) != 1 || results[0].Field == nil || results[0].Field.Path != "data.image" {
		t.Errorf("results: %s", resultLines(results))
	}
}

// An empty sequence matches an empty array setter; a flow sequence keeps
// its style and takes the comment.
func TestCreateSettersEmptyArray(t *testing.T) {
	fc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  none: '[]'\n"
	files := map[string]string{"cm.yaml": "apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems: []\n"}
	out, _, err := render(t, "create-setters", fc, files)
	if err != nil {
		t.Fatal(err)
	}
	if want := "items: [] # kpt-set: ${none}\n"; !strings.Contains(out["cm.yaml"], want) {
		t.Errorf("want %q in:\n%s", want, out["cm.yaml"])
	}
}
