package strictyaml

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/suggest"
)

// Reader walks a parsed document and collects problems. Its methods never
// stop at a problem: they record it and report whether the value was usable,
// so one pass finds everything wrong with a file.
type Reader struct {
	File     string
	problems []Problem
}

// NewReader returns a Reader whose problems name file.
func NewReader(file string) *Reader { return &Reader{File: file} }

func (r *Reader) add(line, col int, field, msg string) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	r.problems = append(r.problems, Problem{File: r.File, Line: line, Column: col, Field: field, Message: msg})
}

// Report records msg, as is, at n's position.
func (r *Reader) Report(n *yaml.Node, field, msg string) {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	r.add(line, col, field, msg)
}

// Errorf records "field: message" at n's position (just the message when
// field is empty).
func (r *Reader) Errorf(n *yaml.Node, field, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	r.Report(n, field, msg)
}

// Problems returns the problems recorded so far, ordered by position.
func (r *Reader) Problems() []Problem {
	out := append([]Problem(nil), r.problems...)
	sortProblems(out)
	return out
}

// Count is the number of problems recorded so far.
func (r *Reader) Count() int { return len(r.problems) }

// Err is nil when nothing was recorded, else a *ValidationError.
func (r *Reader) Err() error {
	if len(r.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: r.Problems()}
}

// Join is the path of key inside the mapping at field. Keys that would make
// the dotted path ambiguous are written as ["key"].
func Join(field, key string) string {
	if strings.ContainsAny(key, ".[]\"/ ") || key == "" {
		return fmt.Sprintf("%s[%q]", field, key)
	}
	if field == "" {
		return key
	}
	return field + "." + key
}

// Index is the path of item i of the list at field.
func Index(field string, i int) string { return fmt.Sprintf("%s[%d]", field, i) }

// IsNull reports whether n is absent or an explicit null ("key:", "~", "null").
func IsNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// Describe names what n is, for messages: `string "two"`, "a list", ...
func Describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("string %q", n.Value)
	case "!!int":
		return "integer " + n.Value
	case "!!bool":
		return "boolean " + n.Value
	case "!!float":
		return "number " + n.Value
	case "!!null":
		return "null"
	}
	return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
}

// Mapping checks that n is a mapping whose keys are strings, unique and
// among known, and returns the non-null values by key. Unknown keys are
// reported at the key with a did-you-mean suggestion; a key whose value is
// null counts as absent. ok is false when n is not a mapping.
func (r *Reader) Mapping(n *yaml.Node, field string, known ...string) (fields map[string]*yaml.Node, ok bool) {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, field, "must be a mapping, got %s", Describe(n))
		return nil, false
	}
	fields = map[string]*yaml.Node{}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			r.Errorf(k, field, "keys must be strings, got %s", Describe(k))
			continue
		}
		key := k.Value
		if first, dup := seen[key]; dup {
			r.Report(k, Join(field, key), fmt.Sprintf("duplicate field %q (first at %d:%d)", key, first.Line, first.Column))
			continue
		}
		seen[key] = k
		if !contains(known, key) {
			msg := fmt.Sprintf("unknown field %q", key)
			if field != "" {
				msg += " in " + field
			}
			if s := suggest.Best(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (known fields: " + strings.Join(known, ", ") + ")"
			}
			r.Report(k, Join(field, key), msg)
			continue
		}
		if IsNull(v) {
			continue
		}
		fields[key] = v
	}
	return fields, true
}

// Require reports, at the mapping n, each of names missing from fields.
func (r *Reader) Require(n *yaml.Node, field string, fields map[string]*yaml.Node, names ...string) bool {
	ok := true
	for _, name := range names {
		if fields[name] == nil {
			ok = false
			if field == "" {
				r.Report(n, name, fmt.Sprintf("missing required field %q", name))
			} else {
				r.Report(n, Join(field, name), fmt.Sprintf("%s: missing required field %q", field, name))
			}
		}
	}
	return ok
}

// String returns a scalar's text. Any scalar is accepted (as go-yaml does
// when decoding into a string): `ref: 2024` is the string "2024".
func (r *Reader) String(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode || IsNull(n) {
		r.Errorf(n, field, "must be a string, got %s", Describe(n))
		return "", false
	}
	return n.Value, true
}

// NonEmptyString is String that also refuses "".
func (r *Reader) NonEmptyString(n *yaml.Node, field string) (string, bool) {
	s, ok := r.String(n, field)
	if ok && strings.TrimSpace(s) == "" {
		r.Errorf(n, field, "must not be empty")
		return "", false
	}
	return s, ok
}

// Int returns an integer in the int32 range.
func (r *Reader) Int(n *yaml.Node, field string) (int, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		var v int64
		if err := n.Decode(&v); err != nil || v < math.MinInt32 || v > math.MaxInt32 {
			r.Errorf(n, field, "integer %s is out of range", n.Value)
			return 0, false
		}
		return int(v), true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if _, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil {
			r.Errorf(n, field, "must be an integer, got %s (remove the quotes)", Describe(n))
			return 0, false
		}
	}
	r.Errorf(n, field, "must be an integer, got %s", Describe(n))
	return 0, false
}

// Bool returns true or false. YAML 1.1 spellings (yes, no, on, off) are
// strings in YAML 1.2 and are refused with a hint.
func (r *Reader) Bool(n *yaml.Node, field string) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && (n.Value == "true" || n.Value == "false") {
		r.Errorf(n, field, "must be true or false, got %s (remove the quotes)", Describe(n))
		return false, false
	}
	r.Errorf(n, field, "must be true or false, got %s", Describe(n))
	return false, false
}

// Enum returns a string that must be one of allowed.
func (r *Reader) Enum(n *yaml.Node, field string, allowed ...string) (string, bool) {
	s, ok := r.String(n, field)
	if !ok {
		return "", false
	}
	if contains(allowed, s) {
		return s, true
	}
	msg := fmt.Sprintf("must be one of %s, got %q", strings.Join(allowed, ", "), s)
	if sug := suggest.Best(s, allowed); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	r.Errorf(n, field, "%s", msg)
	return "", false
}

// Sequence returns a list's items.
func (r *Reader) Sequence(n *yaml.Node, field string) ([]*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		r.Errorf(n, field, "must be a list, got %s", Describe(n))
		return nil, false
	}
	return n.Content, true
}

// Strings returns a list of non-empty strings with the node of each, for
// positioned checks of the values. Bad items are reported and left out.
func (r *Reader) Strings(n *yaml.Node, field string) ([]string, []*yaml.Node, bool) {
	items, ok := r.Sequence(n, field)
	if !ok {
		return nil, nil, false
	}
	out := make([]string, 0, len(items))
	nodes := make([]*yaml.Node, 0, len(items))
	for i, it := range items {
		s, ok := r.NonEmptyString(it, Index(field, i))
		if !ok {
			continue
		}
		out = append(out, s)
		nodes = append(nodes, it)
	}
	return out, nodes, true
}

// StringMap returns a mapping of strings to strings (a null value is "").
func (r *Reader) StringMap(n *yaml.Node, field string) (map[string]string, bool) {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, field, "must be a mapping, got %s", Describe(n))
		return nil, false
	}
	out := make(map[string]string, len(n.Content)/2)
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || IsNull(k) {
			r.Errorf(k, field, "keys must be strings, got %s", Describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			r.Report(k, Join(field, k.Value), fmt.Sprintf("duplicate key %q in %s (first at %d:%d)", k.Value, field, first.Line, first.Column))
			continue
		}
		seen[k.Value] = k
		if IsNull(v) {
			out[k.Value] = ""
			continue
		}
		s, ok := r.String(v, Join(field, k.Value))
		if ok {
			out[k.Value] = s
		}
	}
	return out, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
