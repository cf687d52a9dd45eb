package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// write puts the rendered resources back into their files the way kpt's
// package writer lays them out (file by path annotation, documents by index,
// reader annotations stripped, each document's sequence indentation as
// read), but only touches files whose bytes change, validates every path
// before writing anything, and then removes files none of whose resources
// survived. The nodes are consumed.
func (r *renderer) write(nodes []*yaml.RNode) (changed, deleted []string, err error) {
	if !allPlaced(nodes) {
		if err := kioutil.DefaultPathAndIndexAnnotation("", nodes); err != nil {
			return nil, nil, err
		}
	}
	files := map[string][]*yaml.RNode{}
	var order []string
	for _, n := range nodes {
		a := annotationsOf(n)
		for _, key := range []string{kioutil.IndexAnnotation, kioutil.PathAnnotation} {
			if v, _ := annotation(a, key); v == "" {
				return nil, nil, errors.Errorf("resources must be annotated with %s to be written to files", key)
			}
		}
		p, _ := annotation(a, kioutil.PathAnnotation)
		if filepath.IsAbs(p) {
			return nil, nil, errors.Errorf("package paths may not be absolute paths")
		}
		if strings.Contains(filepath.Clean(p), "..") {
			return nil, nil, fmt.Errorf("resource must be written under package %s: %s", r.root, filepath.Clean(p))
		}
		if _, ok := files[p]; !ok {
			order = append(order, p)
		}
		files[p] = append(files[p], n)
	}
	for _, p := range order {
		if r.fsys.IsDir(filepath.Join(r.root, p)) {
			return nil, nil, fmt.Errorf("config.kubernetes.io/path cannot be a directory: %s", p)
		}
	}
	type out struct {
		rel, abs string
		data     []byte
	}
	var outs []out
	outputFiles := map[string]bool{}
	for _, p := range order {
		abs := filepath.Join(r.root, p)
		if err := sortNodes(files[p]); err != nil {
			return nil, nil, err
		}
		data, err := encodeFile(files[p])
		if err != nil {
			return nil, nil, err
		}
		outputFiles[filepath.Clean(p)] = true
		if old, err := r.fsys.ReadFile(abs); err == nil && bytes.Equal(old, data) {
			continue
		}
		outs = append(outs, out{rel: p, abs: abs, data: data})
	}
	for _, o := range outs {
		if err := r.fsys.MkdirAll(filepath.Dir(o.abs)); err != nil {
			return changed, deleted, err
		}
		if err := r.fsys.WriteFile(o.abs, o.data); err != nil {
			return changed, deleted, err
		}
		changed = append(changed, filepath.ToSlash(filepath.Clean(o.rel)))
	}
	var prune []string
	for f := range r.inputFiles {
		if !outputFiles[f] && !r.res.SavedOnFailure { // a failed render's partial result deletes nothing
			prune = append(prune, f)
		}
	}
	sort.Strings(prune)
	for _, f := range prune {
		if err := r.fsys.RemoveAll(filepath.Join(r.root, f)); err != nil {
			return changed, deleted, fmt.Errorf("failed to delete file: %w", err)
		}
		deleted = append(deleted, filepath.ToSlash(f))
	}
	sort.Strings(changed)
	return changed, deleted, nil
}

// allPlaced reports whether kioutil.DefaultPathAndIndexAnnotation would
// leave nodes alone: every resource has its path and index, in both the
// internal and the legacy annotation, consistently.
func allPlaced(nodes []*yaml.RNode) bool {
	for _, n := range nodes {
		a := annotationsOf(n)
		if needsLegacyCopy(a) {
			return false
		}
		if _, ok := annotation(a, kioutil.PathAnnotation); !ok {
			return false
		}
		if _, ok := annotation(a, kioutil.IndexAnnotation); !ok {
			return false
		}
	}
	return true
}

// sortNodes is kioutil.SortNodes (stable, by path then index, resources
// without an index first), reading each node's annotations once.
func sortNodes(nodes []*yaml.RNode) error {
	type key struct {
		path, index string
		i           int
	}
	keys := make([]key, len(nodes))
	for i, n := range nodes {
		a := annotationsOf(n)
		if needsLegacyCopy(a) {
			return kioutil.SortNodes(nodes)
		}
		keys[i].path, _ = annotation(a, kioutil.PathAnnotation)
		keys[i].index, _ = annotation(a, kioutil.IndexAnnotation)
		if keys[i].index != "" {
			v, err := strconv.Atoi(keys[i].index)
			if err != nil {
				return kioutil.SortNodes(nodes)
			}
			keys[i].i = v
		}
	}
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool {
		a, b := keys[idx[x]], keys[idx[y]]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.index == b.index {
			return false
		}
		if a.index == "" {
			return true
		}
		if b.index == "" {
			return false
		}
		return a.i < b.i
	})
	sorted := make([]*yaml.RNode, len(nodes))
	for x, i := range idx {
		sorted[x] = nodes[i]
	}
	copy(nodes, sorted)
	return nil
}

// encodeFile is what kio.ByteWriter writes for one file of a package (no
// reader annotations, no path annotations), working on the nodes in place.
func encodeFile(nodes []*yaml.RNode) ([]byte, error) {
	var buf bytes.Buffer
	if len(nodes) == 1 {
		if p, _ := fileAnnotations(nodes[0]); p != "" {
			for _, g := range kio.JSONMatch {
				if ok, _ := filepath.Match(g, filepath.Base(p)); ok {
					err := kio.ByteWriter{Writer: &buf,
						ClearAnnotations: []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation}}.Write(nodes) //nolint:staticcheck
					return buf.Bytes(), err
				}
			}
		}
	}
	docs, wide, err := fileDocuments(nodes)
	if err != nil {
		return nil, err
	}
	// One encoder per document: an encoder keeps every event it emitted
	// until it is closed, so one per file grows a queue the size of the
	// file's whole event stream (most of what writing allocated). What a
	// stream encoder writes between two documents is "---" on a line of its
	// own, and closing one writes nothing more, so the bytes are the same
	// (TestEncodeFilePerDocument).
	for i, doc := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&buf)
		if wide[i] {
			enc.DefaultSeqIndent()
		} else {
			enc.CompactSeqIndent()
		}
		if err := enc.Encode(doc); err != nil {
			return nil, errors.Wrap(err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// fileDocuments strips the reader annotations from nodes and returns the
// documents to write (a wrapped bare sequence unwrapped) and whether each
// was read with wide sequence indentation.
func fileDocuments(nodes []*yaml.RNode) (docs []*yaml.Node, wide []bool, err error) {
	docs, wide = make([]*yaml.Node, len(nodes)), make([]bool, len(nodes))
	for i, n := range nodes {
		seq, _ := annotation(annotationsOf(n), kioutil.SeqIndentAnnotation)
		wide[i] = seq == string(yaml.WideSequenceStyle)
		for _, k := range []string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, kioutil.SeqIndentAnnotation, //nolint:staticcheck
			kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} { //nolint:staticcheck
			clearAnnotation(n, k)
		}
		if err := clearEmptyAnnotations(n); err != nil {
			return nil, nil, err
		}
		docs[i] = n.Document()
		if m := firstField(n.YNode(), yaml.BareSeqNodeWrappingKey); !yaml.IsYNodeNilOrEmpty(m) {
			docs[i] = m
		}
	}
	return docs, wide, nil
}
