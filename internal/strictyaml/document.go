package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits bound what Parse accepts, so that a hostile file (in a pull request
// the bot validates) cannot make it spend unbounded memory or time.
type Limits struct {
	MaxBytes int // the whole file
	MaxDepth int // nesting of mappings and lists
	MaxNodes int // scalars, mappings and lists together
}

// DefaultLimits suit hand-written configuration files: 1 MiB, 32 levels,
// 100 000 nodes.
var DefaultLimits = Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxNodes: 100_000}

// Parse reads data as exactly one YAML document and returns its document
// node. An empty document (nothing but comments and blank lines) returns a
// nil node and no error: the caller decides what empty means.
//
// Problems (syntax errors, size, depth or node count over the limits,
// anchors and aliases, more than one document) are returned together as a
// *ValidationError. Anchors and aliases are refused outright: they are never
// needed in these files and are the means of "billion laughs" inputs.
func Parse(file string, data []byte, lim Limits) (*yaml.Node, error) {
	r := NewReader(file)
	if lim.MaxBytes > 0 && len(data) > lim.MaxBytes {
		r.add(1, 1, "", fmt.Sprintf("file is %d bytes, larger than the %d allowed", len(data), lim.MaxBytes))
		return nil, r.Err()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		r.syntax(err)
		return nil, r.Err()
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		line, col := next.Line, next.Column
		if len(next.Content) > 0 {
			line, col = next.Content[0].Line, next.Content[0].Column
		}
		r.add(line, col, "", "only one YAML document is allowed; remove the \"---\" separator and what follows")
	case !errors.Is(err, io.EOF):
		r.syntax(err)
	}
	if len(doc.Content) == 0 {
		return nil, r.Err()
	}
	w := walker{r: r, lim: lim}
	w.walk(doc.Content[0], 1)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &doc, nil
}

// Root returns the top-level node of a document node (nil for nil).
func Root(doc *yaml.Node) *yaml.Node {
	if doc == nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return doc.Content[0]
	}
	return doc
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntax records a go-yaml parse error. go-yaml reports the line but not
// the column of a syntax error; the column is then 1.
func (r *Reader) syntax(err error) {
	msg := err.Error()
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			line = n
		}
		msg = m[2]
	} else if len(msg) > len("yaml: ") && msg[:len("yaml: ")] == "yaml: " {
		msg = msg[len("yaml: "):]
	}
	r.add(line, 1, "", "invalid YAML: "+msg)
	r.problems[len(r.problems)-1].Cause = err.Error()
}

type walker struct {
	r        *Reader
	lim      Limits
	nodes    int
	tooDeep  bool
	tooMany  bool
	aliasMsg bool
}

func (w *walker) walk(n *yaml.Node, depth int) {
	if w.tooMany {
		return
	}
	w.nodes++
	if w.lim.MaxNodes > 0 && w.nodes > w.lim.MaxNodes {
		w.tooMany = true
		w.r.add(n.Line, n.Column, "", fmt.Sprintf("too many YAML nodes (more than %d)", w.lim.MaxNodes))
		return
	}
	if n.Kind == yaml.AliasNode {
		w.r.add(n.Line, n.Column, "", fmt.Sprintf("YAML alias *%s is not allowed; write the value out", n.Value))
		return
	}
	if n.Anchor != "" {
		w.r.add(n.Line, n.Column, "", fmt.Sprintf("YAML anchor &%s is not allowed", n.Anchor))
	}
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return
	}
	if w.lim.MaxDepth > 0 && depth > w.lim.MaxDepth {
		if !w.tooDeep {
			w.tooDeep = true
			w.r.add(n.Line, n.Column, "", fmt.Sprintf("nested more than %d levels deep", w.lim.MaxDepth))
		}
		return
	}
	for _, c := range n.Content {
		w.walk(c, depth+1)
	}
}
