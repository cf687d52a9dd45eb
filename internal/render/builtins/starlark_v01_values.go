package builtins

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/porchbot/porchbot/internal/render/yamlsize"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The v0.1 releases hand the program each resource as YAML decodes it into
// Go values (kyaml v0.10 writes the ResourceList and decodes it into a
// map[string]interface{}), turned into Starlark values by a converter of
// qri-io/starlib, and write the program's output back the other way.

// v01ResourceListVersion is the ResourceList apiVersion of kyaml v0.10.
const v01ResourceListVersion = "config.kubernetes.io/v1alpha1"

// v01Converter converts the ResourceList to Starlark values and back; it
// remembers the keys of the dicts made from the input, which came in an
// order Go's maps left to chance.
type v01Converter struct {
	fromInput map[*starlark.Dict]map[string]bool
}

// keysOf are d's keys, as written.
func keysOf(d *starlark.Dict) map[string]bool {
	keys := make(map[string]bool, d.Len())
	for _, k := range d.Keys() {
		keys[k.String()] = true
	}
	return keys
}

var (
	errV01Timestamp = errors.New("a resource holds a YAML timestamp (an unquoted date such as 2021-01-01): starlark " +
		"v0.1.x fail on it with a dump of the Go value, whose text depends on the Go release their image was built " +
		"with; porchbot refuses it: quote the date, or pin starlark v0.4.0 or later")
	errV01ComplexKey = errors.New("a resource has a mapping or sequence as a key, which starlark v0.1.x's " +
		"YAML decoding fails on in a way porchbot does not reproduce; porchbot refuses it")
)

// v01FloatRefusal: the releases' Starlark wrote a float as %g with six
// digits (1, 1e+06, +Inf), today's as 1.0, 1000000.0, +inf; porchbot
// refuses a resource holding a float the two write differently.
func v01FloatRefusal(f float64) error {
	if old, now := strconv.FormatFloat(f, 'g', 6, 64), starlark.Float(f).String(); old != now {
		return fmt.Errorf("a resource holds the number %s, which starlark v0.1.x's Starlark (of March 2020) writes "+
			"as %s where porchbot's writes %s; porchbot refuses it rather than print it otherwise: quote it, or pin "+
			"starlark v0.4.0 or later", strconv.FormatFloat(f, 'g', -1, 64), old, now)
	}
	return nil
}

// resourceList is the program's ctx.resource_list.
func (c *v01Converter) resourceList(items []*yaml.RNode, fc *yaml.RNode) (*starlark.Dict, error) {
	list := make([]starlark.Value, 0, len(items))
	for _, it := range items {
		v, err := c.node(it.YNode())
		if err != nil {
			return nil, itemError(it, err)
		}
		list = append(list, v)
	}
	fcv, err := c.node(fc.YNode())
	if err != nil {
		return nil, fmt.Errorf("functionConfig: %w", err)
	}
	d := starlark.NewDict(4)
	for _, kv := range []struct {
		k string
		v starlark.Value
	}{{"apiVersion", starlark.String(v01ResourceListVersion)}, {"kind", starlark.String(kio.ResourceListKind)},
		{"items", starlark.NewList(list)}, {"functionConfig", fcv}} {
		if err := d.SetKey(starlark.String(kv.k), kv.v); err != nil {
			return nil, err
		}
	}
	c.fromInput[d] = keysOf(d)
	return d, nil
}

// node converts YAML as the releases decode it: a mapping's keys are values
// too, a merge key (<<) merges as the YAML decoder of 2021 did (in the
// order written, later keys winning), aliases are followed.
func (c *v01Converter) node(n *yaml.Node) (starlark.Value, error) {
	if _, err := yamlsize.Expand(n, StarlarkAliasBounds); err != nil {
		return nil, err
	}
	return c.value(n)
}

func (c *v01Converter) value(n *yaml.Node) (starlark.Value, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return starlark.None, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		return c.value(n.Alias)
	case yaml.SequenceNode:
		l := make([]starlark.Value, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return starlark.NewList(l), nil
	case yaml.MappingNode:
		d := starlark.NewDict(len(n.Content) / 2)
		err := c.mapping(d, n)
		c.fromInput[d] = keysOf(d)
		return d, err
	}
	var v interface{}
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case time.Time:
		return nil, errV01Timestamp
	case float64:
		if err := v01FloatRefusal(x); err != nil {
			return nil, err
		}
	}
	return toStarlark(v)
}

// mapping sets n's entries in d, merges in place.
func (c *v01Converter) mapping(d *starlark.Dict, n *yaml.Node) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "" && k.Style == 0) {
			if err := c.merge(d, v); err != nil {
				return err
			}
			continue
		}
		for k.Kind == yaml.AliasNode {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return errV01ComplexKey
		}
		key, err := c.value(k)
		if err != nil {
			return err
		}
		val, err := c.value(v)
		if err != nil {
			return err
		}
		if err := d.SetKey(key, val); err != nil {
			return err
		}
	}
	return nil
}

// merge merges a merge key's mapping, or its sequence of mappings (the last
// first, so that the first wins), into d.
func (c *v01Converter) merge(d *starlark.Dict, n *yaml.Node) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(d, n)
	case yaml.SequenceNode:
		for i := len(n.Content) - 1; i >= 0; i-- {
			m := n.Content[i]
			for m.Kind == yaml.AliasNode {
				m = m.Alias
			}
			if m.Kind != yaml.MappingNode {
				return errors.New("map merge requires map or sequence of maps as the value")
			}
			if err := c.mapping(d, m); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("map merge requires map or sequence of maps as the value")
}

// errV01Output: the program left the ResourceList in a shape the filter
// reads in ways porchbot does not reproduce.
var errV01Output = errors.New("the program left ctx.resource_list without a list of resources (its kind changed, " +
	"items not a list, or an item not a dict), which starlark v0.1.x read in ways porchbot does not reproduce; " +
	"porchbot refuses it")

// output is the program's resources, written back as the filter writes
// them: through Go values and YAML, each formatted.
func (c *v01Converter) output(resourceList starlark.Value) ([]*yaml.RNode, error) {
	if err := c.outputError(resourceList); err != nil {
		return nil, err
	}
	rl, ok := resourceList.(*starlark.Dict)
	if !ok {
		return nil, errV01Output
	}
	if kind, _, _ := rl.Get(starlark.String("kind")); kind != starlark.String(kio.ResourceListKind) && kind != starlark.String("List") {
		return nil, errV01Output
	}
	items, found, _ := rl.Get(starlark.String("items"))
	if _, fc, _ := rl.Get(starlark.String("functionConfig")); !found && !fc {
		return nil, errV01Output
	}
	if !found || items == starlark.None {
		return nil, nil
	}
	list, ok := items.(*starlark.List)
	if !ok {
		return nil, errV01Output
	}
	var out []*yaml.RNode
	for i := 0; i < list.Len(); i++ {
		if _, ok := list.Index(i).(*starlark.Dict); !ok {
			return nil, errV01Output
		}
		g, err := fromStarlark(list.Index(i))
		if err != nil {
			return nil, err
		}
		item, err := yamlNode(g)
		if err != nil {
			return nil, err
		}
		if err := v01Format(item); err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// outputError is the error the releases' converter fails on, if it fails:
// an int outside 32 bits, or a value that has no YAML, each wrapped once
// for every dict around it. Where dicts made from the input hold more than
// one, which comes first was left to chance: porchbot refuses the run unless
// all of them say the same.
func (c *v01Converter) outputError(v starlark.Value) error {
	if hasTupleKey(v) {
		return errV01TupleKey
	}
	msgs := c.firstErrors(v)
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		for m := range msgs {
			return errors.New(m)
		}
	}
	all := make([]string, 0, len(msgs))
	for m := range msgs {
		all = append(all, m)
	}
	sort.Strings(all)
	return fmt.Errorf("starlark v0.1.x fail on the first value of the program's output they cannot write, in an "+
		"order left to chance here; porchbot refuses the run rather than pick one of: %s", strings.Join(all, "; "))
}

// firstErrors are the errors the releases' converter may fail on first
// for v.
func (c *v01Converter) firstErrors(v starlark.Value) map[string]bool {
	switch x := v.(type) {
	case starlark.NoneType, starlark.Bool, starlark.String, starlark.Float:
		return nil
	case starlark.Int:
		if i, ok := x.Int64(); !ok || i > math.MaxInt32 || i < math.MinInt32 {
			return map[string]bool{x.String() + " out of range": true}
		}
		return nil
	case *starlark.List:
		for i := 0; i < x.Len(); i++ {
			if m := c.firstErrors(x.Index(i)); len(m) > 0 {
				return m
			}
		}
		return nil
	case starlark.Tuple:
		for _, e := range x {
			if m := c.firstErrors(e); len(m) > 0 {
				return m
			}
		}
		return nil
	case *starlark.Dict:
		// the keys a dict made from the input had then come first, in an
		// order left to chance: any of them failing may fail first; the
		// keys set since come after, in order
		chance := c.fromInput[x]
		all := map[string]bool{}
		for _, kv := range x.Items() {
			if len(all) > 0 && !chance[kv[0].String()] {
				return all
			}
			entry := prefixed("unmarshaling starlark value: ", c.firstErrors(kv[1]))
			if len(entry) == 0 {
				entry = prefixed("unmarshaling starlark key: ", c.firstErrors(kv[0]))
			}
			if len(entry) > 0 && !chance[kv[0].String()] {
				return entry
			}
			for m := range entry {
				all[m] = true
			}
		}
		return all
	case *lazyOpenAPI:
		return map[string]bool{errOpenAPIV01.Error(): true}
	case *starlarkstruct.Struct:
		return map[string]bool{"constructor object from *starlarkstruct.Struct not supported Marshaler to starlark object: " +
			x.Constructor().Type(): true}
	}
	return map[string]bool{"unrecognized starlark type: " + v.Type(): true}
}

func prefixed(prefix string, msgs map[string]bool) map[string]bool {
	out := make(map[string]bool, len(msgs))
	for m := range msgs {
		out[prefix+m] = true
	}
	return out
}

// errV01TupleKey: a dict with a tuple as a key crashes the releases' converter.
var errV01TupleKey = errors.New("the program's output has a dict with a tuple as a key, which crashes starlark " +
	"v0.1.x (a Go panic); porchbot refuses it")

// hasTupleKey reports a dict with a tuple key in v.
func hasTupleKey(v starlark.Value) bool {
	switch x := v.(type) {
	case *starlark.List:
		for i := 0; i < x.Len(); i++ {
			if hasTupleKey(x.Index(i)) {
				return true
			}
		}
	case starlark.Tuple:
		for _, e := range x {
			if hasTupleKey(e) {
				return true
			}
		}
	case *starlark.Dict:
		for _, kv := range x.Items() {
			if _, ok := kv[0].(starlark.Tuple); ok || hasTupleKey(kv[1]) {
				return true
			}
		}
	}
	return false
}

// yamlNode is v written as YAML and read back, as the filter does.
func yamlNode(v interface{}) (*yaml.RNode, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("writing %T as YAML: %w", v, err)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("reading %T back: %w", v, err)
	}
	return n, nil
}
