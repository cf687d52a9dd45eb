package builtins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The catalog's first releases of set-namespace and set-labels (v0.1.x, and
// set-namespace v0.2.0) and set-image v0.1.x ran kustomize's transformers over
// a kustomize resource map: every item went to JSON and back on its way
// through, whatever the transformer did to it. What comes back has lost its
// scalar styles (a quoted string comes back plain unless it needs quotes, then
// double-quoted; flow collections come back as blocks; a folded block as a
// literal one) and its comments; kpt's function runner then puts the comments
// and the field order of the input back. jsonRoundTrip does the same.

// runResmap runs a transformer as the resource-map releases did: configure
// it from the functionConfig, transform the items as the resource map holds
// them (unstructured: kunstructItems), and hand them back through JSON. A
// failure is one error result and a non-zero exit; success reports nothing.
func runResmap(rl *framework.ResourceList, unstructured bool, configure func(*yaml.RNode) error, transform func([]*yaml.RNode)) error {
	err := func() error {
		if err := configure(rl.FunctionConfig); err != nil {
			return fmt.Errorf("failed to configure function: %w", err)
		}
		items := rl.Items
		var err error
		if unstructured {
			if items, err = kunstructItems(items); err != nil {
				return fmt.Errorf("failed to run function: %w", err)
			}
		}
		transform(items)
		if items, err = roundTripItems(items, unstructured); err != nil {
			return fmt.Errorf("failed to run function: %w", err)
		}
		rl.Items = items
		return nil
	}()
	if err != nil {
		rl.Results = append(rl.Results, result(err.Error(), framework.Error))
	}
	return err
}

// jsonRoundTrip returns rn as it comes back from a trip through JSON and a
// Go map: encoded into a fresh YAML node with the encoder's own styles.
func jsonRoundTrip(rn *yaml.RNode) (*yaml.RNode, error) {
	b, err := rn.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	return yaml.Parse(string(out))
}

// roundTripItems replaces every mapping item with its JSON round trip
// (unstructured: as the unstructured resource map writes it back).
func roundTripItems(items []*yaml.RNode, unstructured bool) ([]*yaml.RNode, error) {
	out := make([]*yaml.RNode, 0, len(items))
	for _, it := range items {
		if it.YNode().Kind != yaml.MappingNode {
			out = append(out, it)
			continue
		}
		roundTrip := jsonRoundTrip
		if unstructured {
			roundTrip = func(rn *yaml.RNode) (*yaml.RNode, error) {
				return jsonToYAML(yaml11Value(rn.YNode()))
			}
		}
		rt, err := roundTrip(it)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	return out, nil
}

// goMapString prints v as fmt's %v prints a map[string]interface{} (keys sorted).
func goMapString(v interface{}) string {
	switch t := v.(type) {
	case map[string]interface{}:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+":"+goMapString(t[k]))
		}
		return "map[" + strings.Join(parts, " ") + "]"
	case []interface{}:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			parts = append(parts, goMapString(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	default:
		return fmt.Sprint(t)
	}
}

// Before kustomize api v0.8 (set-namespace v0.1.0–v0.1.3, set-labels
// v0.1.3–v0.1.4) the resource map held Kubernetes unstructured objects: each
// item was read as YAML 1.1 (so a plain `n`, `yes` or `off` is a boolean, a
// plain `0x1F` the number 31), local-config items were left out of the map
// (and so out of the function's output: kpt deletes their files), and the
// objects were written back through JSON. kunstructRoundTrip does the same.

// kunstructItems returns the items as the unstructured resource map gives
// them back: local-config items dropped, the others through kunstructRoundTrip.
// An item without a name (as YAML 1.1 reads it) fails, local-config or not.
func kunstructItems(items []*yaml.RNode) ([]*yaml.RNode, error) {
	out := make([]*yaml.RNode, 0, len(items))
	for _, it := range items {
		if it.YNode().Kind != yaml.MappingNode {
			out = append(out, it)
			continue
		}
		obj, _ := yaml11Value(it.YNode()).(map[string]interface{})
		meta, _ := obj["metadata"].(map[string]interface{})
		if name, _ := meta["name"].(string); name == "" {
			return nil, fmt.Errorf("missing metadata.name in object {%v}", goMapString(obj))
		}
		if isLocalConfig(it) {
			continue
		}
		rt, err := jsonToYAML(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	return out, nil
}

// jsonToYAML writes v as JSON and reads it back as sigs.k8s.io/yaml's
// JSONToYAML does (integers stay integers), encoded into a fresh YAML node.
func jsonToYAML(v interface{}) (*yaml.RNode, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m interface{}
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(yaml11Numbers(m))
	if err != nil {
		return nil, err
	}
	return yaml.Parse(string(out))
}

// yaml11Numbers turns json.Numbers into the integers or floats YAML 1.1 reads
// them as.
func yaml11Numbers(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			t[k] = yaml11Numbers(e)
		}
	case []interface{}:
		for i, e := range t {
			t[i] = yaml11Numbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(t), 10, 64); err == nil {
			return u
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	}
	return v
}

// yaml11Value is the value of n as a YAML 1.1 reader (go-yaml v2 decoding
// into interface{}, then to JSON and into an unstructured object) sees it:
// maps with string keys, lists, strings, booleans, nil, int64 and float64.
func yaml11Value(n *yaml.Node) interface{} {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return yaml11Value(n.Content[0])
	case yaml.AliasNode:
		return yaml11Value(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]interface{}, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[jsonKey(yaml11Value(n.Content[i]))] = yaml11Value(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := make([]interface{}, 0, len(n.Content))
		for _, e := range n.Content {
			s = append(s, yaml11Value(e))
		}
		return s
	}
	if n.Style != 0 && n.Style != yaml.FlowStyle {
		return n.Value // quoted or block scalar: a string
	}
	return yaml11Scalar(n.Value)
}

// jsonKey is a map key as YAMLToJSON writes it.
func jsonKey(k interface{}) string {
	switch t := k.(type) {
	case string:
		return t
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 32)
	}
	return fmt.Sprint(k)
}

var (
	yaml11Bools = map[string]bool{
		"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
		"true": true, "True": true, "TRUE": true,
		"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
		"false": false, "False": false, "FALSE": false,
	}
	yaml11Float = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
)

// yaml11Scalar resolves a plain scalar as go-yaml v2 does (timestamps stay
// strings when decoded into interface{}).
func yaml11Scalar(s string) interface{} {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	if b, ok := yaml11Bools[s]; ok {
		return b
	}
	switch c := s[0]; {
	case c == '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		plain := strings.ReplaceAll(s, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return float64(u) // an unstructured object holds no uint64
		}
		if yaml11Float.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return f
			}
		}
		if strings.HasPrefix(plain, "0b") {
			if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
				return i
			}
		} else if strings.HasPrefix(plain, "-0b") {
			if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
				return i
			}
		}
	}
	return s
}
