package strictyaml

import (
	"strings"
	"testing"
)

func TestParseDocument(t *testing.T) {
	doc, err := Parse("f.yaml", []byte("# c\na: 1\n"), DefaultLimits)
	if err != nil || Root(doc) == nil || Root(doc).Content[0].Value != "a" {
		t.Fatalf("Parse = %v, %v", doc, err)
	}
	for _, empty := range []string{"", "\n\n", "# only a comment\n"} {
		if doc, err := Parse("f.yaml", []byte(empty), DefaultLimits); doc != nil || err != nil {
			t.Errorf("Parse(%q) = %v, %v; want nil, nil", empty, doc, err)
		}
	}
	tests := map[string]string{
		"a: [1":             "f.yaml:1:1: invalid YAML: did not find expected ',' or ']'",
		"a: 1\n---\nb: 2\n": `f.yaml:3:1: only one YAML document is allowed; remove the "---" separator and what follows`,
		"a: &x 1\nb: *x\n":  "f.yaml:1:4: YAML anchor &x is not allowed\nf.yaml:2:4: YAML alias *x is not allowed; write the value out",
		"a: 1\nb: \x01":     "f.yaml:1:1: invalid YAML: control characters are not allowed",
	}
	for src, want := range tests {
		_, err := Parse("f.yaml", []byte(src), DefaultLimits)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) = %v, want %q", src, err, want)
		}
	}
	lim := Limits{MaxBytes: 10, MaxDepth: 2, MaxNodes: 5}
	if _, err := Parse("f", []byte("a: 123456789\n"), lim); err == nil || !strings.Contains(err.Error(), "f:1:1: file is 13 bytes, larger than the 10 allowed") {
		t.Errorf("size: %v", err)
	}
	lim.MaxBytes = 0
	if _, err := Parse("f", []byte("a: {b: {c: 1}}\n"), lim); err == nil || !strings.Contains(err.Error(), "f:1:8: nested more than 2 levels deep") {
		t.Errorf("depth: %v", err)
	}
	if _, err := Parse("f", []byte("[1, 2, 3, 4, 5]\n"), lim); err == nil || !strings.Contains(err.Error(), "too many YAML nodes (more than 5)") {
		t.Errorf("nodes: %v", err)
	}
}

func TestReaderScalars(t *testing.T) {
	doc, err := Parse("f", []byte(`i: 3
s: "3"
x: 0x10
b: true
y: yes
q: "false"
f: 1.5
l: [a, "", b]
m: {k: v, n: ~, k2: 2}
d: {k: 1, k: 2}
`), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader("f")
	f, ok := r.Mapping(Root(doc), "", "i", "s", "x", "b", "y", "q", "f", "l", "m", "d")
	if !ok {
		t.Fatal("not a mapping")
	}
	if i, ok := r.Int(f["i"], "i"); !ok || i != 3 {
		t.Errorf("Int(i) = %d %v", i, ok)
	}
	if i, ok := r.Int(f["x"], "x"); !ok || i != 16 {
		t.Errorf("Int(x) = %d %v", i, ok)
	}
	r.Int(f["s"], "s")
	r.Int(f["f"], "f")
	if b, ok := r.Bool(f["b"], "b"); !ok || !b {
		t.Errorf("Bool(b) = %v %v", b, ok)
	}
	r.Bool(f["y"], "y")
	r.Bool(f["q"], "q")
	if s, ok := r.String(f["i"], "i"); !ok || s != "3" {
		t.Errorf("String(i) = %q %v", s, ok)
	}
	r.String(f["l"], "l")
	if l, nodes, ok := r.Strings(f["l"], "l"); !ok || strings.Join(l, ",") != "a,b" || len(nodes) != 2 {
		t.Errorf("Strings = %v %v", l, ok)
	}
	if m, ok := r.StringMap(f["m"], "m"); !ok || m["k"] != "v" || m["n"] != "" || m["k2"] != "2" {
		t.Errorf("StringMap = %v %v", m, ok)
	}
	r.StringMap(f["d"], "d")
	r.Enum(f["b"], "b", "on", "off")
	// Problems come back sorted by position, not in the order found.
	want := []string{
		`f:2:4: s: must be an integer, got string "3" (remove the quotes)`,
		`f:4:4: b: must be one of on, off, got "true"`,
		`f:5:4: y: must be true or false, got string "yes"`,
		`f:6:4: q: must be true or false, got string "false" (remove the quotes)`,
		`f:7:4: f: must be an integer, got number 1.5`,
		`f:8:4: l: must be a string, got a list`,
		`f:8:8: l[1]: must not be empty`,
		`f:10:11: duplicate key "k" in d (first at 10:5)`,
	}
	var got []string
	for _, p := range r.Problems() {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Count() != len(want) || r.Err() == nil {
		t.Errorf("Count = %d", r.Count())
	}
}

func TestJoinAndIndex(t *testing.T) {
	for _, tt := range []struct{ field, key, want string }{
		{"", "a", "a"}, {"a", "b", "a.b"}, {"labels", "app.kubernetes.io/name", `labels["app.kubernetes.io/name"]`}, {"m", "", `m[""]`},
	} {
		if got := Join(tt.field, tt.key); got != tt.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tt.field, tt.key, got, tt.want)
		}
	}
	if got := Index("variants", 2); got != "variants[2]" {
		t.Errorf("Index = %q", got)
	}
}
