package builtins

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// This file holds the object helpers several catalog functions are built on
// (the kpt functions SDK's KubeObject semantics): string fields are only the
// scalars tagged !!str, setting a field creates the missing parent maps at the
// end of their parent, and replacing a value keeps the old value's comments.

const (
	localConfigAnnotation = "config.kubernetes.io/local-config"
	upstreamIdentifier    = "internal.kpt.dev/upstream-identifier"
	defaultNamespace      = "default"
	unknownNamespace      = "~C"
	fnConfigGroup         = "fn.kpt.dev"
	fnConfigVersion       = "v1alpha1"
	fnConfigAPIVersion    = fnConfigGroup + "/" + fnConfigVersion
)

// shortTag returns the resolved YAML tag of a scalar node ("!!str", "!!int",
// ...). A plain scalar without an explicit tag (one made in process, never
// one read from YAML) gets the tag YAML gives it when it is read back, as
// the next function of a pipeline reads it.
func shortTag(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		switch n.Kind {
		case yaml.MappingNode:
			return yaml.NodeTagMap
		case yaml.SequenceNode:
			return yaml.NodeTagSeq
		}
		return n.Tag
	}
	if n.Tag != "" && n.Tag != "!" {
		return n.Tag
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || n.Tag == "!" {
		return yaml.NodeTagString
	}
	return resolvePlain(n.Value)
}

// resolvePlain is the tag the YAML decoder gives plain scalar v (YAML 1.2
// core schema, plus timestamps, `<<` and 0-prefixed octals as yaml.v3
// resolves them).
func resolvePlain(v string) string {
	if v == "<<" {
		return yaml.MergeTag // the parser's, not the resolver's
	}
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: v}).ShortTag()
}

// stringNode builds a scalar string node the way the functions SDK does.
func stringNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
}

func isStringKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "" || n.Tag == yaml.NodeTagString || shortTag(n) == yaml.NodeTagString)
}

// mapValue returns the value node of key in mapping node m.
func mapValue(m *yaml.Node, key string) (*yaml.Node, bool) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if isStringKey(m.Content[i]) && m.Content[i].Value == key {
			return m.Content[i+1], true
		}
	}
	return nil, false
}

var errWrongType = fmt.Errorf("wrong node type")

// nestedNode walks mapping nodes along path.
func nestedNode(n *yaml.Node, path ...string) (*yaml.Node, bool, error) {
	cur := n
	for _, p := range path {
		if cur.Kind != yaml.MappingNode {
			return nil, true, errWrongType
		}
		v, ok := mapValue(cur, p)
		if !ok {
			return nil, false, nil
		}
		cur = v
	}
	return cur, true, nil
}

// nestedString returns the string at path: found is false when the field is
// missing; err is set when it exists but is not a string.
func nestedString(rn *yaml.RNode, path ...string) (string, bool, error) {
	if rn == nil || rn.YNode() == nil {
		return "", false, nil
	}
	v, found, err := nestedNode(rn.YNode(), path...)
	if err != nil || !found {
		return "", found, err
	}
	if v.Kind != yaml.ScalarNode || shortTag(v) != yaml.NodeTagString {
		return "", true, errWrongType
	}
	return v.Value, true, nil
}

func getString(rn *yaml.RNode, path ...string) string {
	s, _, _ := nestedString(rn, path...)
	return s
}

// nestedMap returns the mapping node at path, nil if missing or not a map.
func nestedMap(n *yaml.Node, path ...string) *yaml.Node {
	if n == nil {
		return nil
	}
	v, found, err := nestedNode(n, path...)
	if err != nil || !found || v.Kind != yaml.MappingNode {
		return nil
	}
	return v
}

// nestedSlice returns the elements of the sequence at path which are maps.
func nestedSlice(n *yaml.Node, path ...string) []*yaml.Node {
	if n == nil {
		return nil
	}
	v, found, err := nestedNode(n, path...)
	if err != nil || !found || v.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, e := range v.Content {
		if e.Kind == yaml.MappingNode {
			out = append(out, e)
		}
	}
	return out
}

// setMapValue sets key in mapping m to value: an existing value is replaced
// (keeping its comments), a new key is appended.
func setMapValue(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if isStringKey(m.Content[i]) && m.Content[i].Value == key {
			old := m.Content[i+1]
			value.HeadComment = old.HeadComment
			value.LineComment = old.LineComment
			value.FootComment = old.FootComment
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, stringNode(key), value)
}

// setNestedString sets the string at path, creating missing maps.
func setNestedString(n *yaml.Node, value string, path ...string) error {
	return setNestedNode(n, stringNode(value), path...)
}

func setNestedNode(n *yaml.Node, value *yaml.Node, path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("empty path")
	}
	cur := n
	for i, p := range path {
		if cur.Kind != yaml.MappingNode {
			return fmt.Errorf("unable to set %v at fields %v: %w", value.Value, path, errWrongType)
		}
		if i == len(path)-1 {
			setMapValue(cur, p, value)
			return nil
		}
		next, ok := mapValue(cur, p)
		if !ok {
			next = &yaml.Node{Kind: yaml.MappingNode}
			cur.Content = append(cur.Content, stringNode(p), next)
		}
		cur = next
	}
	return nil
}

// typeMeta parsing, as k8s.io/apimachinery schema.ParseGroupVersion does.
type gvk struct{ Group, Version, Kind string }

func objectGVK(rn *yaml.RNode) gvk {
	apiVersion := getString(rn, yaml.APIVersionField)
	kind := getString(rn, yaml.KindField)
	g, v, ok := parseGroupVersion(apiVersion)
	if !ok {
		return gvk{}
	}
	return gvk{Group: g, Version: v, Kind: kind}
}

func parseGroupVersion(apiVersion string) (string, string, bool) {
	if apiVersion == "" || apiVersion == "/" {
		return "", "", true
	}
	switch strings.Count(apiVersion, "/") {
	case 0:
		return "", apiVersion, true
	case 1:
		i := strings.Index(apiVersion, "/")
		return apiVersion[:i], apiVersion[i+1:], true
	}
	return "", "", false
}

// isGVK matches only on the given, non-empty arguments, and an object with an
// empty group/version/kind matches any value for it (the SDK's IsGVK).
func isGVK(rn *yaml.RNode, group, version, kind string) bool {
	g := objectGVK(rn)
	if g.Kind != "" && kind != "" && g.Kind != kind {
		return false
	}
	if g.Group != "" && group != "" && g.Group != group {
		return false
	}
	if g.Version != "" && version != "" && g.Version != version {
		return false
	}
	return true
}

func annotations(rn *yaml.RNode) map[string]string {
	m := nestedMap(rn.YNode(), yaml.MetadataField, yaml.AnnotationsField)
	out := map[string]string{}
	if m == nil {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1].Kind != yaml.ScalarNode {
			return map[string]string{}
		}
		out[m.Content[i].Value] = m.Content[i+1].Value
	}
	return out
}

func getAnnotation(rn *yaml.RNode, key string) string {
	return getString(rn, yaml.MetadataField, yaml.AnnotationsField, key)
}

func isLocalConfig(rn *yaml.RNode) bool {
	v := getAnnotation(rn, localConfigAnnotation)
	return v != "" && v != "false"
}

func hasNamespace(rn *yaml.RNode) bool {
	_, found, _ := nestedString(rn, yaml.MetadataField, yaml.NamespaceField)
	return found
}

func isNamespaceScoped(rn *yaml.RNode) bool {
	tm := yaml.TypeMeta{APIVersion: getString(rn, yaml.APIVersionField), Kind: getString(rn, yaml.KindField)}
	if scoped, ok := openapi.IsNamespaceScoped(tm); ok {
		return scoped
	}
	return hasNamespace(rn)
}

// shortString is the SDK's human-readable resource identifier.
func shortString(rn *yaml.RNode) string {
	return fmt.Sprintf("Resource(apiVersion=%v, kind=%v, namespace=%v, name=%v)",
		getString(rn, yaml.APIVersionField), getString(rn, yaml.KindField),
		getString(rn, yaml.MetadataField, yaml.NamespaceField), getString(rn, yaml.MetadataField, yaml.NameField))
}

func isEmptyConfig(rn *yaml.RNode) bool {
	return rn == nil || rn.YNode() == nil || yaml.IsYNodeEmptyMap(rn.YNode()) || yaml.IsYNodeNilOrEmpty(rn.YNode())
}

// dataMap returns a ConfigMap's data as strings.
func dataMap(rn *yaml.RNode) map[string]string {
	if rn == nil {
		return map[string]string{}
	}
	return rn.GetDataMap()
}

func resourceRef(rn *yaml.RNode) *yaml.ResourceIdentifier {
	if rn == nil {
		return nil
	}
	return &yaml.ResourceIdentifier{
		TypeMeta: yaml.TypeMeta{APIVersion: getString(rn, yaml.APIVersionField), Kind: getString(rn, yaml.KindField)},
		NameMeta: yaml.NameMeta{Name: getString(rn, yaml.MetadataField, yaml.NameField),
			Namespace: getString(rn, yaml.MetadataField, yaml.NamespaceField)},
	}
}

// fileOf is the SDK's file reference of an object: its path annotation and
// index annotation (-1 when the object has none).
func fileOf(rn *yaml.RNode) *framework.File {
	f := &framework.File{Index: -1}
	if rn == nil || rn.YNode() == nil {
		return f
	}
	f.Path = getAnnotation(rn, kioutil.PathAnnotation)
	if f.Path == "" {
		f.Path = getAnnotation(rn, kioutil.LegacyPathAnnotation)
	}
	idx := getAnnotation(rn, kioutil.IndexAnnotation)
	if idx == "" {
		idx = getAnnotation(rn, kioutil.LegacyIndexAnnotation)
	}
	if i, err := strconv.Atoi(idx); err == nil {
		f.Index = i
	}
	return f
}

// fileAnnotations is kioutil.GetFileAnnotations (path and index from the
// internal annotations, else the legacy ones) without building the metadata
// maps it builds on every call.
func fileAnnotations(rn *yaml.RNode) (path, index string) {
	path, found := metaAnnotation(rn, kioutil.PathAnnotation)
	if !found {
		path, _ = metaAnnotation(rn, kioutil.LegacyPathAnnotation) //nolint:staticcheck
	}
	index, found = metaAnnotation(rn, kioutil.IndexAnnotation)
	if !found {
		index, _ = metaAnnotation(rn, kioutil.LegacyIndexAnnotation) //nolint:staticcheck
	}
	return path, index
}

// metaAnnotation is rn.GetMeta().Annotations[key] for a key that is not
// null-like: the first `metadata` and `annotations` fields count, and the
// first occurrence of the key.
func metaAnnotation(rn *yaml.RNode, key string) (string, bool) {
	if yaml.IsMissingOrNull(rn) {
		return "", false
	}
	md := rn.Field(yaml.MetadataField)
	if md.IsNilOrEmpty() {
		return "", false
	}
	annos := md.Value.Field(yaml.AnnotationsField)
	if annos.IsNilOrEmpty() || annos.Value.YNode().Kind != yaml.MappingNode {
		return "", false
	}
	f := annos.Value.Field(key)
	if f == nil {
		return "", false
	}
	return yaml.GetValue(f.Value), true
}

// Result constructors.

func result(msg string, sev framework.Severity) *framework.Result {
	return &framework.Result{Message: msg, Severity: sev}
}

func errorResult(err error) *framework.Result {
	return &framework.Result{Message: err.Error(), Severity: framework.Error}
}

// objectResult is a result about one object (the SDK's ConfigObjectResult):
// it always names the object and its file, empty ones included.
func objectResult(msg string, sev framework.Severity, rn *yaml.RNode) *framework.Result {
	ref := resourceRef(rn)
	if ref == nil {
		ref = &yaml.ResourceIdentifier{}
	}
	return &framework.Result{Message: msg, Severity: sev, ResourceRef: ref, File: fileOf(rn)}
}

// A Failure is how a catalog function fails once its results say why: it
// exits 1 having printed Stderr (which may be nothing) on stderr.
type Failure struct{ Stderr string }

func (f Failure) Error() string { return f.Stderr }

// errFunctionFailure is what a function built on the kpt functions SDK of
// May 2022 or later prints when it fails (the SDK's AsMain).
var errFunctionFailure = Failure{"failed to evaluate function: error: function failure"}

// ErrResultsOnly is the failure of a function built on an earlier SDK,
// which printed nothing.
var ErrResultsOnly = Failure{}
