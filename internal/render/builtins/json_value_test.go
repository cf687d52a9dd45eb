package builtins

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestJSONValueIsMarshalJSON: jsonValue gives what RNode.MarshalJSON
// gives, read back with numbers as json.Number.
func TestJSONValueIsMarshalJSON(t *testing.T) {
	doc := `apiVersion: v1
kind: ConfigMap
metadata:
  name: all
  labels: &l {a: "1", b: yes}
data:
  str: hello
  quoted: "12"
  int: 12
  hex: 0x1F
  octal: 0o17
  neg: -3
  float: 1.50
  exp: 1e3
  bool: true
  nothing: null
  tilde: ~
  empty:
  date: 2021-01-02
  stamp: 2021-01-02T03:04:05Z
  list: [1, two, 3.0, false]
  nested: {x: {y: [z]}}
  alias: *l
  merged:
    <<: *l
    a: mine
`
	rn := yaml.MustParse(doc)
	b, err := rn.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var want any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := jsonValue(rn.YNode()); !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		t.Errorf("jsonValue:\n%s\nMarshalJSON:\n%s", gb, b)
	}
}
