package update

import "testing"

// What Merge adds to a file for kpt is taken out again, and nothing else.
func TestWithoutBookkeeping(t *testing.T) {
	in := `apiVersion: v1
kind: ConfigMap
metadata: # kpt-merge: example/cm
  name: cm
  namespace: example
  annotations:
    internal.kpt.dev/upstream-identifier: '|ConfigMap|example|cm'
data:
  a: "1" # a comment kept
---
apiVersion: v1
kind: Namespace
metadata: # kpt-merge: /example
  name: example
  annotations:
    keep: "yes"
    internal.kpt.dev/upstream-identifier: '|Namespace|default|example'
`
	want := `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: example
data:
  a: "1" # a comment kept
---
apiVersion: v1
kind: Namespace
metadata:
  name: example
  annotations:
    keep: "yes"
`
	got, err := WithoutBookkeeping([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if HasBookkeeping(got) {
		t.Fatal("bookkeeping left")
	}
	plain := []byte("kind: A\nmetadata:\n  name: a\n")
	if got, _ := WithoutBookkeeping(plain); string(got) != string(plain) {
		t.Fatalf("a file without bookkeeping changed: %q", got)
	}
}
