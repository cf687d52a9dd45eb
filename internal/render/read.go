package render

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Reading a package as kyaml's LocalPackageReader reads it for kpt (files
// by the reader's own walk, .krmignore and subpackages included, each file
// through a ByteReader keeping sequence indents and wrapping bare
// sequences), with the same nodes and annotations, for less: the
// ByteReader sets each resource's six reader annotations through kyaml's
// filters (a field lookup, a path getter and a field setter each, a fifth
// of what reading allocates), builds a map of every label and annotation of
// each resource to find nothing to check, and splits each document into
// lines twice. Here the annotations are set on the node tree (setAnnotation)
// and the rest is skipped where it cannot change the outcome. Anything out
// of the ordinary (a file that does not split or parse, a bare sequence)
// makes the package read with kyaml's reader after all, so that its errors
// are kpt's (TestReadAsKyaml compares the two on every package of the test
// corpora).

// errReadWithKyaml makes a package read with kyaml's reader.
var errReadWithKyaml = errors.New("read with kyaml's reader")

// packageReader is the LocalPackageReader kpt reads a package's own
// resources with.
func (r *renderer) packageReader(pkg *pkgNode) kio.LocalPackageReader {
	return kio.LocalPackageReader{
		PackagePath:       pkg.abs,
		PackageFileName:   KptfileName,
		MatchFilesGlob:    matchAllKRM,
		PreserveSeqIndent: true,
		SetAnnotations:    map[string]string{pkgPathAnnotation: pkg.abs},
		WrapBareSeqNode:   true,
		FileSystem:        filesys.FileSystemOrOnDisk{FileSystem: r.fsys},
	}
}

// readPackage reads pkg's own resources (see above).
func (r *renderer) readPackage(pkg *pkgNode) ([]*yaml.RNode, error) {
	nodes, err := r.readPackageDirect(pkg)
	if errors.Is(err, errReadWithKyaml) {
		return r.packageReader(pkg).Read()
	}
	return nodes, err
}

// readPackageDirect lists the files kyaml's reader would read (its walk,
// asked through FileSkipFunc, which it consults for every file it has not
// ignored, in walk order) and reads each as its ByteReader would.
func (r *renderer) readPackageDirect(pkg *pkgNode) ([]*yaml.RNode, error) {
	var files []string
	lr := r.packageReader(pkg)
	lr.FileSkipFunc = func(rel string) bool {
		for _, g := range matchAllKRM {
			if ok, _ := filepath.Match(g, filepath.Base(rel)); ok {
				files = append(files, rel)
				break
			}
		}
		return true // read below
	}
	if _, err := lr.Read(); err != nil {
		return nil, errReadWithKyaml
	}
	var out []*yaml.RNode
	for _, rel := range files {
		data, err := r.fsys.ReadFile(filepath.Join(pkg.abs, rel))
		if err != nil {
			return nil, errReadWithKyaml
		}
		r.readBytes += int64(len(data))
		if out, err = appendFileResources(out, data, pkg.abs, rel); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readerKeys are the annotations the ByteReader sets on every resource
// LocalPackageReader reads for the render, in the (sorted) order it sets
// them.
var readerKeys = func() []string {
	keys := []string{pkgPathAnnotation, kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, //nolint:staticcheck
		kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, kioutil.SeqIndentAnnotation} //nolint:staticcheck
	slices.Sort(keys)
	return keys
}()

// appendFileResources appends the resources of one file (data, at path rel
// in the package at pkgAbs) as the ByteReader reads them.
func appendFileResources(out []*yaml.RNode, data []byte, pkgAbs, rel string) ([]*yaml.RNode, error) {
	docs, err := splitDocuments(strings.ReplaceAll(string(data), "\r\n", "\n"))
	if err != nil {
		return nil, errReadWithKyaml
	}
	values := map[string]string{pkgPathAnnotation: pkgAbs, kioutil.PathAnnotation: rel,
		kioutil.LegacyPathAnnotation: rel} //nolint:staticcheck
	index := 0
	for i, doc := range docs {
		if i != len(docs)-1 {
			doc += "\n"
		}
		node := &yaml.Node{}
		if err := yaml.NewDecoder(bytes.NewBufferString(doc)).Decode(node); err == io.EOF {
			continue
		} else if err != nil {
			return nil, errReadWithKyaml
		}
		if yaml.IsYNodeEmptyDoc(node) {
			continue
		}
		if node.Kind == yaml.DocumentNode && len(node.Content) > 0 && node.Content[0] != nil &&
			node.Content[0].Kind == yaml.SequenceNode {
			return nil, errReadWithKyaml // a bare sequence, wrapped
		}
		n := yaml.NewRNode(node)
		if needsLegacyCopy(annotationsOf(n)) {
			if err := kioutil.CopyLegacyAnnotations(n); err != nil {
				return nil, errReadWithKyaml
			}
		}
		id := strconv.Itoa(index)
		values[kioutil.IndexAnnotation], values[kioutil.LegacyIndexAnnotation] = id, id //nolint:staticcheck
		values[kioutil.SeqIndentAnnotation] = yaml.DeriveSeqIndentStyle(doc)
		for _, k := range readerKeys {
			if err := setAnnotation(n, k, values[k]); err != nil {
				return nil, errReadWithKyaml
			}
		}
		out = append(out, n)
		index++
	}
	return out, nil
}

// documentSeparator is a line that starts with ---.
var documentSeparator = regexp.MustCompile(`\n---.*\n`)

// splitDocuments is the ByteReader's: the documents between separator
// lines, a separator followed by anything but a comment being an error.
func splitDocuments(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var docs []string
	prev := 0
	for _, loc := range documentSeparator.FindAllStringIndex(s, -1) {
		sep := s[loc[0]:loc[1]]
		if rest := strings.TrimSpace(sep[4:]); rest != "" && rest[0] != '#' {
			return nil, errReadWithKyaml
		}
		docs = append(docs, s[prev:loc[0]])
		prev = loc[1]
	}
	return append(docs, s[prev:]), nil
}
