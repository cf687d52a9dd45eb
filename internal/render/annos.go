package render

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Cheap readers of the metadata kyaml's bookkeeping looks at. kyaml goes
// through RNode.GetMeta, which builds maps of every label and annotation on
// each call; these read the node tree in place and give the same answers
// (GetMeta's rules: the first `metadata` and `annotations` keys count, the
// last occurrence of an annotation wins, a !!null value reads as "").

func resMapping(rn *yaml.RNode) *yaml.Node {
	if rn == nil {
		return nil
	}
	n := rn.YNode()
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// firstField returns the value of the first key named name in mapping m.
func firstField(m *yaml.Node, name string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

func nodeValue(v *yaml.Node) string {
	if v == nil || v.Tag == yaml.NodeTagNull {
		return ""
	}
	return v.Value
}

// annotationsOf returns the metadata.annotations mapping GetMeta reads, or nil.
func annotationsOf(rn *yaml.RNode) *yaml.Node {
	md := firstField(resMapping(rn), yaml.MetadataField)
	if yaml.IsYNodeNilOrEmpty(md) {
		return nil
	}
	a := firstField(md, yaml.AnnotationsField)
	if yaml.IsYNodeNilOrEmpty(a) || a.Kind != yaml.MappingNode {
		return nil
	}
	return a
}

// annotation looks up one annotation as GetMeta().Annotations[key] would.
func annotation(annos *yaml.Node, key string) (string, bool) {
	if annos == nil {
		return "", false
	}
	val, found := "", false
	for i := 0; i+1 < len(annos.Content); i += 2 {
		if nodeValue(annos.Content[i]) == key {
			val, found = nodeValue(annos.Content[i+1]), true
		}
	}
	return val, found
}

// fileAnnotations is kioutil.GetFileAnnotations.
func fileAnnotations(rn *yaml.RNode) (path, index string) {
	a := annotationsOf(rn)
	path, found := annotation(a, kioutil.PathAnnotation)
	if !found {
		path, _ = annotation(a, kioutil.LegacyPathAnnotation) //nolint:staticcheck
	}
	index, found = annotation(a, kioutil.IndexAnnotation)
	if !found {
		index, _ = annotation(a, kioutil.LegacyIndexAnnotation) //nolint:staticcheck
	}
	return path, index
}

// krmMeta is GetMeta's apiVersion, kind and name, and whether GetMeta would
// fail with ErrMissingMetadata.
func krmMeta(rn *yaml.RNode) (apiVersion, kind, name string, missing bool) {
	m := resMapping(rn)
	missing = true
	if f := firstField(m, yaml.APIVersionField); !yaml.IsYNodeNilOrEmpty(f) {
		apiVersion, missing = nodeValue(f), false
	}
	if f := firstField(m, yaml.KindField); !yaml.IsYNodeNilOrEmpty(f) {
		kind, missing = nodeValue(f), false
	}
	md := firstField(m, yaml.MetadataField)
	if yaml.IsYNodeNilOrEmpty(md) {
		return apiVersion, kind, name, missing
	}
	if f := firstField(md, yaml.NameField); !yaml.IsYNodeNilOrEmpty(f) {
		name, missing = f.Value, false
	}
	for _, k := range []string{yaml.NamespaceField, yaml.LabelsField, yaml.AnnotationsField} {
		if f := firstField(md, k); !yaml.IsYNodeNilOrEmpty(f) {
			missing = false
		}
	}
	return apiVersion, kind, name, missing
}

// internalAnnotationPairs lists what kioutil.GetInternalAnnotations returns
// (in document order; a later duplicate overrides an earlier one).
func internalAnnotationPairs(rn *yaml.RNode) []string {
	return appendInternalAnnotationPairs(nil, rn)
}

// appendInternalAnnotationPairs appends internalAnnotationPairs(rn) to dst.
func appendInternalAnnotationPairs(dst []string, rn *yaml.RNode) []string {
	a := annotationsOf(rn)
	if a == nil {
		return dst
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		k := nodeValue(a.Content[i])
		if strings.HasPrefix(k, internalPrefix) ||
			k == kioutil.LegacyPathAnnotation || k == kioutil.LegacyIndexAnnotation || k == kioutil.LegacyIdAnnotation { //nolint:staticcheck
			dst = append(dst, k, nodeValue(a.Content[i+1]))
		}
	}
	return dst
}

const internalPrefix = "internal.config.kubernetes.io/"

type annoPair struct{ internal, legacy string }

var annoPairs = []annoPair{
	{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation},   //nolint:staticcheck
	{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation}, //nolint:staticcheck
	{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation},       //nolint:staticcheck
}

// pairValues reads the annotations of annoPairs from annotations mapping a
// in one pass, as annotation reads each: vals[2*i] the internal and
// vals[2*i+1] the legacy one of pair i ("" when absent).
func pairValues(a *yaml.Node) (vals [6]string) {
	if a == nil {
		return vals
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		k := nodeValue(a.Content[i])
		for j, p := range annoPairs {
			switch k {
			case p.internal:
				vals[2*j] = nodeValue(a.Content[i+1])
			case p.legacy:
				vals[2*j+1] = nodeValue(a.Content[i+1])
			default:
				continue
			}
			break
		}
	}
	return vals
}

// pairsInSync reports whether every internal/legacy annotation pair holds
// the same value (both possibly empty).
func pairsInSync(a *yaml.Node) bool {
	v := pairValues(a)
	return v[0] == v[1] && v[2] == v[3] && v[4] == v[5]
}

// setAnnotation is yaml.SetAnnotation for the common case of an existing,
// non-empty annotations mapping; otherwise it calls yaml.SetAnnotation.
func setAnnotation(rn *yaml.RNode, key, value string) error {
	a := annotationsOf(rn)
	if a == nil || len(a.Content) == 0 {
		return rn.PipeE(yaml.SetAnnotation(key, value))
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		if a.Content[i].Value == key {
			v := a.Content[i+1]
			*v = yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: v.Style}
			return nil
		}
	}
	if !isUTF8Plain(value) {
		return rn.PipeE(yaml.SetAnnotation(key, value))
	}
	a.Content = append(a.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: yaml.SingleQuotedStyle})
	return nil
}

func isUTF8Plain(s string) bool {
	for _, r := range s {
		if r == '\n' || r == 0xFFFD {
			return false
		}
	}
	return true
}

// clearAnnotation is yaml.ClearAnnotation (removes the first key named key).
func clearAnnotation(rn *yaml.RNode, key string) {
	md := firstField(resMapping(rn), yaml.MetadataField)
	// ClearAnnotation looks the path up with PathGetter: the first
	// `annotations` key of the first `metadata` key, empty or not
	if md == nil || md.Kind != yaml.MappingNode {
		return
	}
	a := firstField(md, yaml.AnnotationsField)
	if a == nil || a.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		if a.Content[i].Value == key {
			// in place, as kyaml's FieldClearer removes a field, and the
			// two slots left over emptied, or the array would keep the
			// removed nodes alive
			n := len(a.Content)
			copy(a.Content[i:], a.Content[i+2:])
			clear(a.Content[n-2:])
			a.Content = a.Content[:n-2]
			return
		}
	}
}

const migrationKey = kioutil.InternalAnnotationsMigrationResourceIDAnnotation

// snapshot is what kio.PreprocessResourcesForInternalAnnotationMigration
// records: each resource's internal annotations (key, value, key, value…),
// by migration id (the resource's position).
type snapshot [][]string

// maps returns the snapshot in kio's form.
func (s snapshot) maps() map[string]map[string]string {
	out := make(map[string]map[string]string, len(s))
	for i, kv := range s {
		m := make(map[string]string, len(kv)/2)
		for j := 0; j+1 < len(kv); j += 2 {
			m[kv[j]] = kv[j+1]
		}
		out[strconv.Itoa(i)] = m
	}
	return out
}

// preprocess is kio.PreprocessResourcesForInternalAnnotationMigration.
func preprocess(nodes []*yaml.RNode) (snapshot, error) {
	out := make(snapshot, len(nodes))
	// a resource read from a file has 4 internal annotations (path and
	// index, both formats); more grow the array
	pairs := make([]string, 0, 8*len(nodes))
	for i, n := range nodes {
		id := strconv.Itoa(i)
		if err := setAnnotation(n, migrationKey, id); err != nil {
			return nil, err
		}
		// all pairs in one backing array; each resource's slice capped
		start := len(pairs)
		pairs = appendInternalAnnotationPairs(pairs, n)
		if len(pairs) > start {
			out[i] = pairs[start:len(pairs):len(pairs)]
		}
		a := annotationsOf(n)
		if needsLegacyCopy(a) {
			if err := kioutil.CopyLegacyAnnotations(n); err != nil {
				return nil, err
			}
			a = annotationsOf(n)
		}
		if err := mismatched(a); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func needsLegacyCopy(a *yaml.Node) bool {
	v := pairValues(a)
	for i := 0; i < 6; i += 2 {
		if (v[i] == "") != (v[i+1] == "") {
			return true
		}
	}
	return false
}

func mismatched(a *yaml.Node) error {
	v := pairValues(a)
	for i, what := range []string{"path", "index", "id"} {
		x, y := v[2*i], v[2*i+1]
		if x != "" && y != "" && x != y {
			return fmt.Errorf("resource input to function has mismatched legacy and internal %s annotations", what)
		}
	}
	return nil
}

// reconcile is kio.ReconcileInternalAnnotations, doing per resource only
// what that function would do: when both annotation formats are in use and
// a resource's internal and legacy annotations agree, that is removing the
// migration id; otherwise kyaml's own code runs for that resource.
func reconcile(nodes []*yaml.RNode, snap snapshot) error {
	useInternal, useLegacy, err := annotationsFormat(snap)
	if err != nil {
		return err
	}
	var maps map[string]map[string]string
	for _, n := range nodes {
		if useInternal && useLegacy && pairsInSync(annotationsOf(n)) {
			clearAnnotation(n, migrationKey)
			continue
		}
		if maps == nil {
			maps = snap.maps()
		}
		if err := kio.ReconcileInternalAnnotations([]*yaml.RNode{n}, maps); err != nil {
			return err
		}
	}
	return nil
}

// annotationsFormat is kio's determineAnnotationsFormat.
func annotationsFormat(snap snapshot) (useInternal, useLegacy bool, err error) {
	if len(snap) == 0 {
		return true, true, nil
	}
	var internal, legacy *bool
	for _, kv := range snap {
		var p, i, d, lp, li, ld bool
		for j := 0; j+1 < len(kv); j += 2 {
			switch kv[j] {
			case kioutil.PathAnnotation:
				p = true
			case kioutil.IndexAnnotation:
				i = true
			case kioutil.IdAnnotation:
				d = true
			case kioutil.LegacyPathAnnotation: //nolint:staticcheck
				lp = true
			case kioutil.LegacyIndexAnnotation: //nolint:staticcheck
				li = true
			case kioutil.LegacyIdAnnotation: //nolint:staticcheck
				ld = true
			}
		}
		if !(p || i || d || lp || li || ld) {
			continue
		}
		in := p || i || d
		if internal == nil {
			internal = &in
		}
		if in != *internal {
			return false, false, fmt.Errorf("the annotation formatting in the input resources is not consistent")
		}
		lg := lp || li || ld
		if legacy == nil {
			legacy = &lg
		}
		if lg != *legacy {
			return false, false, fmt.Errorf("the annotation formatting in the input resources is not consistent")
		}
	}
	if internal != nil {
		useInternal = *internal
	}
	if legacy != nil {
		useLegacy = *legacy
	}
	return useInternal, useLegacy, nil
}

// clearEmptyAnnotations is yaml.ClearEmptyAnnotations: an annotations field
// without content goes, then a metadata field without content.
func clearEmptyAnnotations(rn *yaml.RNode) error {
	m := resMapping(rn)
	if m == nil {
		return yaml.ClearEmptyAnnotations(rn)
	}
	md := firstField(m, yaml.MetadataField)
	if md != nil {
		if md.Kind != yaml.MappingNode {
			return yaml.ClearEmptyAnnotations(rn)
		}
		removeFirstEmpty(md, yaml.AnnotationsField)
	}
	removeFirstEmpty(m, yaml.MetadataField)
	return nil
}

// removeFirstEmpty is FieldClearer{Name: name, IfEmpty: true} on mapping m.
func removeFirstEmpty(m *yaml.Node, name string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != name || len(m.Content[i+1].Content) > 0 {
			continue
		}
		m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
		return
	}
}
