package update

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// HasBookkeeping reports that a file carries kpt's merge bookkeeping: a
// "# kpt-merge:" comment or an upstream-identifier annotation.
func HasBookkeeping(b []byte) bool {
	return bytes.Contains(b, []byte(mergeCommentPrefix)) || bytes.Contains(b, []byte(upstreamIdentifier))
}

// WithoutBookkeeping is a KRM file that Merge wrote without what the merge
// adds to every resource for kpt (addMergeComments): the "# kpt-merge:"
// comment on metadata and the internal.kpt.dev/upstream-identifier
// annotation (annotations, then metadata, dropped when that leaves them
// empty). A merge of two trees that never had them (a draft rebased on a
// revision of its own package) gives files without them again. A file
// without either is returned as it is.
func WithoutBookkeeping(b []byte) ([]byte, error) {
	if !HasBookkeeping(b) {
		return b, nil
	}
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(b), Writer: &out, PreserveSeqIndent: true, WrapBareSeqNode: true}
	err := kio.Pipeline{
		Inputs:  []kio.Reader{rw},
		Filters: []kio.Filter{kio.FilterFunc(removeMergeComments)},
		Outputs: []kio.Writer{rw},
	}.Execute()
	if err != nil {
		return nil, fmt.Errorf("remove kpt's merge bookkeeping: %w", err)
	}
	return out.Bytes(), nil
}

// removeMergeComments undoes addMergeComments on each resource.
func removeMergeComments(nodes []*yaml.RNode) ([]*yaml.RNode, error) {
	for _, n := range nodes {
		mf := n.Field(yaml.MetadataField)
		if mf.IsNilOrEmpty() {
			continue
		}
		if key := mf.Key.YNode(); strings.Contains(key.LineComment, mergeCommentPrefix) {
			key.LineComment = ""
		}
		if _, err := n.Pipe(yaml.ClearAnnotation(upstreamIdentifier)); err != nil {
			return nil, err
		}
		if err := yaml.ClearEmptyAnnotations(n); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}
