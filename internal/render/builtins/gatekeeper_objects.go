package builtins

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// How the gatekeeper releases read the items: each one written out as YAML
// by kyaml and decoded by sigs.k8s.io/yaml into a Kubernetes object, so as
// YAML 1.1 (a plain yes, on or y is true, no, off or n false, 0777 is 511,
// a date stays a string) through JSON (numbers are int64 where they are
// integers, float64 otherwise) — unless the release's runtime scheme knows
// the kind, which is then decoded into a Go type and never reaches the
// audit's data. porchbot reads the same values from the YAML nodes
// (gkValue), without writing and parsing.

// errGatekeeperNotReproduced marks an input porchbot refuses rather than
// guess at what the release does with it.
var errGatekeeperNotReproduced = errors.New("porchbot does not reproduce what gatekeeper does here")

func gatekeeperRefusal(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errGatekeeperNotReproduced}, args...)...)
}

// newGKObject reads an item as the release does. Where the release's object
// would not name the item as kpt does (a name YAML 1.1 reads as a boolean
// or a number), or porchbot does not know what the release makes of it,
// porchbot refuses.
func newGKObject(it *yaml.RNode) (*gkObject, error) {
	o := &gkObject{apiVersion: it.GetApiVersion(), kind: it.GetKind(), name: it.GetName(), namespace: it.GetNamespace()}
	id := o.kind + " " + o.name
	v, err := gkValue(it.YNode())
	if err != nil {
		return nil, gatekeeperRefusal("%s: %w", id, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a resource is not a mapping")
	}
	meta := mapOf(m["metadata"])
	for _, f := range []struct {
		field string
		value any
		want  string
	}{{"apiVersion", m["apiVersion"], o.apiVersion}, {"kind", m["kind"], o.kind},
		{"metadata.name", meta["name"], o.name}, {"metadata.namespace", meta["namespace"], o.namespace}} {
		if s, _ := f.value.(string); s != f.want {
			return nil, gatekeeperRefusal("the release reads the %s of %s as YAML 1.1, as %v", f.field, id, f.value)
		}
	}
	o.object = m
	return o, nil
}

// gkValue is the value the release decodes from n once kyaml has written
// it: YAML 1.1 read through JSON (see above). A plain string that YAML 1.2
// reads as something else is written quoted, so stays a string. What it
// refuses (an error): a merge key, an explicit tag other than !!str (which
// the release's decoder reads as YAML 1.1 does) and infinities or NaN
// (which JSON cannot hold: the release fails on them).
func gkValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return gkValue(n.Content[0])
	case yaml.AliasNode:
		return gkValue(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].ShortTag() == yaml.MergeTag {
				return nil, errors.New("a merge key (<<), which the release merges as YAML 1.1's decoder does")
			}
			k, err := gkValue(n.Content[i])
			if err != nil {
				return nil, err
			}
			if m[jsonKey(k)], err = gkValue(n.Content[i+1]); err != nil {
				return nil, err
			}
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := gkValue(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	}
	switch {
	case n.Style&yaml.TaggedStyle != 0 && n.ShortTag() != yaml.NodeTagString:
		return nil, fmt.Errorf("the value %q tagged %s", n.Value, n.Tag)
	case n.Style&^yaml.FlowStyle != 0, n.ShortTag() == yaml.NodeTagString && yaml12NonString(n.Value):
		return n.Value, nil
	}
	switch v := yaml11Scalar(n.Value).(type) {
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("the value %s, which JSON cannot hold", n.Value)
		}
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return int64(v), nil // as JSON writes it and an unstructured object reads it back
		}
		return v, nil
	default:
		return v, nil
	}
}

// yaml12NonString is whether a plain scalar s is no string to YAML 1.2 (a
// node of s tagged !!str is then written quoted).
func yaml12NonString(s string) bool {
	switch s {
	case "", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	if !strings.ContainsRune("+-.0123456789~<", rune(s[0])) {
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	return doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() != yaml.NodeTagString
}

// metaKinds are the kinds apimachinery's metav1.AddToGroupVersion types in
// every group version a scheme registers (ExportOptions up to Kubernetes
// 1.20's apimachinery).
var metaKinds = []string{"WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions", "UpdateOptions", "PatchOptions"}

// typed is whether the release's runtime scheme decodes the kind into a Go
// type: Gatekeeper's framework registers templates.gatekeeper.sh (its
// typedVersions: ConstraintTemplate and its List) and, in v0.2.1,
// externaldata.gatekeeper.sh/v1alpha1 (Provider and its List), each with
// apimachinery's meta kinds, which also put Status and the discovery kinds
// in the core v1 and WatchEvent in each group's __internal.
func (r gatekeeperRelease) typed(group, version, kind string) bool {
	meta := slices.Contains(metaKinds, kind) || r.exportOptions && kind == "ExportOptions"
	switch {
	case group == "" && version == "v1":
		return slices.Contains([]string{"Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"}, kind)
	case version == "__internal":
		return kind == "WatchEvent" && (group == templateGroup || r.externalData && group == externalDataGroup)
	case group == templateGroup && slices.Contains(r.typedVersions, version):
		return kind == "ConstraintTemplate" || kind == "ConstraintTemplateList" || meta
	case group == externalDataGroup && r.externalData && version == "v1alpha1":
		return kind == "Provider" || kind == "ProviderList" || meta
	}
	return false
}

const externalDataGroup = "externaldata.gatekeeper.sh"
