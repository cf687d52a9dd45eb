package update

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// How kpt tells which resources of origin, updated and local are the same:
// the "# kpt-merge: namespace/name" line comment it writes on metadata (so a
// resource renamed downstream still matches its upstream), else the
// resource's own namespace and name; plus group, kind and file path. It also
// records the upstream resource as an annotation.
const (
	mergeCommentPrefix  = "kpt-merge:"
	upstreamIdentifier  = "internal.kpt.dev/upstream-identifier"
	identifierDefaultNS = "default"
	identifierUnknownNS = "~C"
)

// mergeComment is the "# kpt-merge: ns/name" comment of a resource, or "".
func mergeComment(n *yaml.RNode) string {
	mf := n.Field(yaml.MetadataField)
	if mf.IsNilOrEmpty() {
		return ""
	}
	return mf.Key.YNode().LineComment
}

// nsNameFromComment parses a merge comment; ok is false when c is not one.
func nsNameFromComment(c string) (ns, name string, ok bool) {
	c = strings.TrimSpace(strings.TrimPrefix(c, "#"))
	rest, found := strings.CutPrefix(c, mergeCommentPrefix)
	if !found {
		return "", "", false
	}
	ns, name, ok = strings.Cut(strings.TrimSpace(rest), "/")
	return ns, name, ok
}

// matchKey is the identity a resource is matched by across the three
// trees; ok is false when the resource has no readable metadata (it then
// matches nothing).
func matchKey(n *yaml.RNode) (string, bool) {
	if err := kioutil.CopyLegacyAnnotations(n); err != nil {
		return "", false
	}
	meta, err := n.GetMeta()
	if err != nil {
		return "", false
	}
	group, _ := resid.ParseGroupVersion(meta.APIVersion)
	ns, name := meta.Namespace, meta.Name
	if cns, cname, ok := nsNameFromComment(mergeComment(n)); ok {
		ns, name = cns, cname
	}
	return strings.Join([]string{group, meta.Kind, ns, name, meta.Annotations[kioutil.PathAnnotation]}, "\x00"), true
}

// addMergeComments is the kio filter kpt runs on each tree before it merges
// (and on the result after): every resource with a name, namespace or labels
// gets the merge comment (when it has none) and the upstream identifier.
func addMergeComments(nodes []*yaml.RNode) ([]*yaml.RNode, error) {
	for _, n := range nodes {
		meta, err := n.GetMeta()
		if err != nil {
			continue
		}
		if n.GetName() == "" && n.GetNamespace() == "" && len(n.GetLabels()) == 0 {
			continue
		}
		key := n.Field(yaml.MetadataField).Key.YNode()
		if !strings.Contains(key.LineComment, mergeCommentPrefix) {
			key.LineComment = fmt.Sprintf("%s %s/%s", mergeCommentPrefix, meta.Namespace, meta.Name)
		}
		ns, name, ok := nsNameFromComment(key.LineComment)
		if !ok {
			ns, name = n.GetNamespace(), n.GetName()
		}
		switch {
		case ns == "":
			ns = identifierDefaultNS
		case n.GetNamespace() == resid.TotallyNotANamespace:
			ns = identifierUnknownNS
		}
		group, _ := resid.ParseGroupVersion(n.GetApiVersion())
		id := fmt.Sprintf("%s|%s|%s|%s", group, n.GetKind(), ns, name)
		_ = n.PipeE(yaml.SetAnnotation(upstreamIdentifier, id))
	}
	return nodes, nil
}

// commentTree adds merge comments to every KRM file of the tree (its
// subpackages included); a tree kyaml cannot read is left as it is (kpt
// goes on without the comments: the callers decide).
func commentTree(t tree) error {
	rw := &kio.LocalPackageReadWriter{
		PackagePath:       t.root,
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
		FileSystem:        filesysOf(t),
	}
	return kio.Pipeline{
		Inputs:  []kio.Reader{rw},
		Filters: []kio.Filter{kio.FilterFunc(addMergeComments)},
		Outputs: []kio.Writer{rw},
	}.Execute()
}

// resourceName is how a conflict names a resource: apiVersion, kind and
// namespace/name.
func resourceName(n *yaml.RNode) string {
	name := n.GetName()
	if ns := n.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return strings.TrimSpace(n.GetApiVersion() + " " + n.GetKind() + " " + name)
}
