package builtins

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	kptfilev1 "github.com/porchbot/porchbot/internal/render/builtins/sdkapi/kptfile/v1"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// list-setters (catalog v0.1.0, kyaml v0.11's function framework): reports
// the package's setters, one result each (no severity), sorted by name:
// `Name: app, Value: nginx, Type: str, Count: 3`. They come from the
// apply-setters functions of the Kptfile's mutators (their configMap or
// configPath file, count 0) and from the `# kpt-set: ` comments of every
// item: a scalar's pattern (`${app}:${tag}`) gives each setter its value
// and YAML type, a sequence's (on its key, or on a flow sequence) an array
// setter. It changes nothing. It decodes the root Kptfile strictly into the
// SDK's Kptfile types of 2021, so a Kptfile field they lack (a function's
// `name`, `selectors` or `exec`, a `status`) fails it; a Kptfile it cannot
// use otherwise is skipped quietly. No setter at all fails it.

type listSetter struct {
	name, value, typ string
	values           []string
	count            int
}

type listSetters struct {
	arrays, scalars map[string]*listSetter
}

// errSetterDiscovery is a Kptfile the release skips (its warnings, which it
// never reports).
var errSetterDiscovery = errors.New("setter discovery warning")

func listSettersV010(rl *framework.ResourceList) error {
	ls := &listSetters{arrays: map[string]*listSetter{}, scalars: map[string]*listSetter{}}
	err := ls.discover(rl.Items)
	var found []*listSetter
	if err == nil {
		if found = ls.sorted(); len(found) == 0 {
			err = fmt.Errorf("no setters found")
		}
	}
	if err != nil {
		rl.Results = append(rl.Results, result("failed to list setters: "+err.Error(), framework.Error))
		// printed by the release's framework, then by its main with a newline
		return Failure{err.Error() + err.Error() + "\n"}
	}
	for _, s := range found {
		value, typ := s.value, s.typ
		if s.values != nil {
			value, typ = "["+strings.Join(s.values, ", ")+"]", "array"
		}
		rl.Results = append(rl.Results, &framework.Result{
			Message: fmt.Sprintf("Name: %s, Value: %s, Type: %s, Count: %d", s.name, value, typ, s.count)})
	}
	return nil
}

func (ls *listSetters) discover(items []*yaml.RNode) error {
	setters, err := kptfileSetters(items)
	if err != nil && !errors.Is(err, errSetterDiscovery) {
		return err
	}
	for name, value := range setters {
		if values, ok := arraySetterValues(value); ok {
			ls.arrays[name] = &listSetter{name: name, values: values}
		} else {
			ls.scalars[name] = &listSetter{name: name, value: value, typ: "str"}
		}
	}
	for _, it := range items {
		if _, err := it.GetMeta(); err != nil {
			return err
		}
		ls.walk(it.YNode())
	}
	return nil
}

// kptfileSetters are the setters of the root Kptfile's apply-setters
// mutators.
func kptfileSetters(items []*yaml.RNode) (map[string]string, error) {
	var kf *yaml.RNode
	for _, it := range items {
		if it.GetAnnotations()[kioutil.LegacyPathAnnotation] == "Kptfile" { //nolint:staticcheck
			kf = it
			break
		}
	}
	if kf == nil {
		return nil, errSetterDiscovery
	}
	s, err := kf.String()
	if err != nil {
		return nil, fmt.Errorf("unable to read Kptfile: %w", err)
	}
	var kptfile kptfilev1.KptFile
	d := yaml.NewDecoder(strings.NewReader(s))
	d.KnownFields(true)
	if err := d.Decode(&kptfile); err != nil {
		return nil, fmt.Errorf("unable to read Kptfile: invalid 'v1' Kptfile: %w", err)
	}
	if kptfile.Pipeline == nil {
		return nil, errSetterDiscovery
	}
	var setters map[string]string
	for _, fn := range kptfile.Pipeline.Mutators {
		if !strings.Contains(fn.Image, "apply-setters") {
			continue
		}
		var more map[string]string
		switch {
		case fn.ConfigMap != nil:
			more = fn.ConfigMap
		case fn.ConfigPath != "":
			cfg := itemAtPath(items, fn.ConfigPath)
			if cfg == nil {
				return nil, errSetterDiscovery
			}
			more = cfg.GetDataMap()
		default:
			return nil, errSetterDiscovery
		}
		if setters == nil {
			setters = map[string]string{}
		}
		for k, v := range more {
			setters[k] = v
		}
	}
	if len(setters) == 0 {
		return nil, errSetterDiscovery
	}
	return setters, nil
}

func itemAtPath(items []*yaml.RNode, path string) *yaml.RNode {
	for _, it := range items {
		if it.GetAnnotations()[kioutil.LegacyPathAnnotation] == path { //nolint:staticcheck
			return it
		}
	}
	return nil
}

// arraySetterValues reads a setter value that is a YAML sequence: each
// element as written, on one line.
func arraySetterValues(value string) ([]string, bool) {
	rn, err := yaml.Parse(value)
	if err != nil || rn.YNode().Kind != yaml.SequenceNode {
		return nil, false
	}
	values := make([]string, 0, len(rn.YNode().Content))
	for _, e := range rn.YNode().Content {
		s, err := yaml.NewRNode(e).String()
		if err != nil {
			return nil, false
		}
		values = append(values, strings.ReplaceAll(s, "\n", ""))
	}
	return values, true
}

// sorted are the setters by name, an array setter before a scalar one of
// the same name.
func (ls *listSetters) sorted() []*listSetter {
	var out []*listSetter
	for _, m := range []map[string]*listSetter{ls.arrays, ls.scalars} {
		start := len(out)
		for _, s := range m {
			out = append(out, s)
		}
		sort.Slice(out[start:], func(i, j int) bool { return out[start+i].name < out[start+j].name })
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// walk visits n: a mapping's sequence fields, then its field values; a
// sequence's elements; a scalar.
func (ls *listSetters) walk(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := firstField(n, n.Content[i].Value)
			ls.sequence(key, value)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			_, v := firstField(n, n.Content[i].Value)
			ls.walk(v)
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			ls.walk(e)
		}
	case yaml.ScalarNode:
		ls.scalar(n)
	}
}

func (ls *listSetters) sequence(key, value *yaml.Node) {
	if value.Kind != yaml.SequenceNode {
		return
	}
	comment := key.LineComment
	if value.Style == yaml.FlowStyle {
		comment = value.LineComment
	}
	pattern := setterPattern(comment)
	if pattern == "" {
		return
	}
	name := cleanSetterName(pattern)
	if s, ok := ls.arrays[name]; ok {
		s.count++
		return
	}
	var values []string
	for _, e := range value.Content {
		values = append(values, e.Value)
	}
	sort.Strings(values)
	if values == nil {
		values = []string{}
	}
	ls.arrays[name] = &listSetter{name: name, values: values, count: 1}
}

func (ls *listSetters) scalar(n *yaml.Node) {
	pattern := setterPattern(n.LineComment)
	if pattern == "" {
		return
	}
	typ := strings.TrimPrefix(shortTag(n), "!!")
	for name, value := range currentSetterValues(pattern, n.Value) {
		s, ok := ls.scalars[name]
		if !ok {
			ls.scalars[name] = &listSetter{name: name, value: value, typ: typ, count: 1}
			continue
		}
		// a type other than str is the more accurate one
		if s.typ == "str" && typ != "str" {
			s.typ = typ
		}
		s.count++
	}
}
