// Package yamlsize bounds what a YAML document can cost before anything
// turns it into values: the nodes its aliases stand for once expanded, and
// the nodes a file can parse into, counted on its bytes.
package yamlsize

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Expansion is what a node stands for once every alias in it is replaced by
// the node it names: Nodes nodes holding Bytes bytes of scalar text, and
// Aliases alias nodes met on the way (nested aliases count every time).
type Expansion struct {
	Nodes, Bytes, Aliases int64
}

// Bounds cap an expansion; a zero or negative field is no bound.
type Bounds struct {
	Aliases int64 // alias references, nested ones counted each time
	Bytes   int64 // bytes of scalar text, plus nodeBytes per node, of a document that has aliases
}

// nodeBytes is what one node adds to the expanded bytes besides its text,
// so that a bomb of empty scalars is bounded too.
const nodeBytes = 8

// AliasError is a document whose aliases expand beyond a bound, or name a
// node that contains them.
type AliasError struct {
	What  string // what passed the bound, or what is wrong
	Limit int64
	Got   int64 // at least
}

func (e *AliasError) Error() string {
	if e.Limit == 0 {
		return e.What
	}
	return fmt.Sprintf("input too large: %s is at least %d, the limit is %d", e.What, e.Got, e.Limit)
}

// Expand measures n with its aliases expanded, in time linear in the nodes
// written (each anchored node is measured once), and fails as soon as a
// bound is passed or an alias contains itself. The bytes bound applies to
// documents with aliases only: one without is as large as its text, which
// the package limits bound.
func Expand(n *yaml.Node, b Bounds) (Expansion, error) {
	m := &measure{b: b, done: map[*yaml.Node]Expansion{}, open: map[*yaml.Node]bool{}}
	e, err := m.node(n)
	if err != nil {
		return e, err
	}
	return e, m.check(e)
}

type measure struct {
	b    Bounds
	done map[*yaml.Node]Expansion // anchored nodes measured already
	open map[*yaml.Node]bool      // anchored nodes being measured
}

func (m *measure) check(e Expansion) error {
	if m.b.Aliases > 0 && e.Aliases > m.b.Aliases {
		return &AliasError{What: "the number of YAML alias references (nested ones counted each time)", Limit: m.b.Aliases, Got: e.Aliases}
	}
	if m.b.Bytes > 0 && e.Aliases > 0 && e.Bytes > m.b.Bytes {
		return &AliasError{What: "the size in bytes of the resource with its YAML aliases expanded", Limit: m.b.Bytes, Got: e.Bytes}
	}
	return nil
}

func add(a, b Expansion) Expansion {
	return Expansion{Nodes: sat(a.Nodes, b.Nodes), Bytes: sat(a.Bytes, b.Bytes), Aliases: sat(a.Aliases, b.Aliases)}
}

// sat adds without overflowing.
func sat(a, b int64) int64 {
	if s := a + b; s >= a && s >= b {
		return s
	}
	return 1<<63 - 1
}

func (m *measure) node(n *yaml.Node) (Expansion, error) {
	if n == nil {
		return Expansion{}, nil
	}
	if n.Kind == yaml.AliasNode {
		t, err := m.target(n.Alias)
		if err != nil {
			return t, err
		}
		e := add(t, Expansion{Aliases: 1})
		return e, m.check(e)
	}
	if n.Anchor != "" {
		return m.target(n)
	}
	return m.content(n)
}

// target measures an anchored node once.
func (m *measure) target(n *yaml.Node) (Expansion, error) {
	if n == nil {
		return Expansion{}, nil
	}
	if e, ok := m.done[n]; ok {
		return e, nil
	}
	if m.open[n] {
		return Expansion{}, &AliasError{What: "a YAML alias refers to a node that contains it"}
	}
	m.open[n] = true
	e, err := m.content(n)
	delete(m.open, n)
	if err != nil {
		return e, err
	}
	m.done[n] = e
	return e, nil
}

func (m *measure) content(n *yaml.Node) (Expansion, error) {
	e := Expansion{Nodes: 1, Bytes: int64(len(n.Value)) + nodeBytes}
	for _, c := range n.Content {
		ce, err := m.node(c)
		if err != nil {
			return ce, err
		}
		e = add(e, ce)
		if err := m.check(e); err != nil {
			return e, err
		}
	}
	return e, nil
}
