package update

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// The annotation the three readers tag resources with, so the merge knows
// which tree a resource came from (kyaml clears it when it writes).
const (
	sourceAnnotation = "config.kubernetes.io/merge-source"
	sourceOrigin     = "original"
	sourceUpdated    = "updated"
	sourceLocal      = "dest"
)

// blueprintAnnotation is Config Connector's attribution annotation, which
// kpt ignores when it asks whether a local resource is unchanged.
const blueprintAnnotation = "cnrm.cloud.google.com/blueprint"

func filesysOf(t tree) filesys.FileSystemOrOnDisk {
	return filesys.FileSystemOrOnDisk{FileSystem: t.fs}
}

// mergeResources is kpt's 3-way merge of the KRM resources of one package
// (its subpackages left out): local ← origin → updated, written back into
// local. rel is the package's path in the root package, for conflicts.
//
// kpt reads the three packages whole; resources only ever match within one
// file (the file path is part of their identity), so the merge runs file
// by file, which gives the same files while holding one file's resources
// at a time. A package whose resources name their own file (kyaml's path
// annotation written in the YAML) is merged whole, as kpt does.
func (m *merger) mergeResources(rel string, local, updated, origin tree) error {
	all, err := local.walk()
	if err != nil {
		return err
	}
	excluded := local.packageDirs(all)
	files, whole, err := resourceFiles(local, updated, origin)
	if err != nil {
		return err
	}
	if whole && m.localAtRead {
		// merged whole, the files stay as they are when no resource is
		// left: they must hold their comments before
		if err := commentTree(local); err != nil {
			return err
		}
		m.localAtRead = false
	}
	// kpt writes nothing when the merge leaves no resource at all: keep
	// local's files as they are then (with their merge comments: see
	// below)
	before := map[string][]byte{}
	for _, f := range files {
		if b, err := local.read(f); err == nil {
			before[f] = b
		}
	}
	// kpt writes the trees with their merge comments and reads them back;
	// kyaml places comments on their own lines differently on that second
	// reading, so files holding such comments take the same way (the
	// others get their comments as they are read)
	var roundTrip []tree
	if !m.upstreamCommented {
		roundTrip = append(roundTrip, updated, origin)
	}
	if m.localAtRead {
		roundTrip = append(roundTrip, local)
	}
	for _, t := range roundTrip {
		if err := roundTripComments(t, files); err != nil {
			return err
		}
	}
	if whole {
		_, err := m.mergeResourceFiles(rel, local, updated, origin, excluded, nil)
		return err
	}
	kept := 0
	for _, f := range files {
		only := filepath.FromSlash(f)
		n, err := m.mergeResourceFiles(rel, local, updated, origin, excluded, func(p string) bool { return p != only })
		if err != nil {
			return err
		}
		kept += n
	}
	if kept == 0 {
		for f, b := range before {
			if err := local.write(f, b); err != nil {
				return err
			}
		}
		if m.localAtRead {
			// best effort, as kpt's own commenting of the tree
			_ = commentTree(local)
		}
	}
	return nil
}

// resourceFiles lists the YAML files of the package in the three trees;
// whole is true when one of them sets kyaml's path or index annotations
// itself.
func resourceFiles(trees ...tree) (files []string, whole bool, err error) {
	seen := map[string]bool{}
	for _, t := range trees {
		own, err := t.ownFiles()
		if err != nil {
			return nil, false, err
		}
		for _, f := range own {
			if !isKRMFile(f) || path.Base(f) == kptfile.FileName {
				continue
			}
			b, err := t.read(f)
			if err != nil {
				return nil, false, err
			}
			if bytes.Contains(b, []byte("config.kubernetes.io/path")) || bytes.Contains(b, []byte("config.kubernetes.io/index")) {
				whole = true
			}
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return files, whole, nil
}

// mergeResourceFiles merges the resources of the package's files that skip
// does not leave out (all with nil), and says how many it kept.
func (m *merger) mergeResourceFiles(rel string, local, updated, origin tree, excluded []string, skip kio.LocalPackageSkipFileFunc) (int, error) {
	reader := func(t tree, source string) kio.Reader {
		return &prunedReader{
			r: kio.LocalPackageReader{
				PackagePath:       t.root,
				SetAnnotations:    map[string]string{sourceAnnotation: source},
				PackageFileName:   kptfile.FileName,
				PreserveSeqIndent: true,
				WrapBareSeqNode:   true,
				FileSkipFunc:      skip,
				FileSystem:        filesysOf(t),
			},
			excluded: excluded,
		}
	}
	dest := &kio.LocalPackageReadWriter{
		PackagePath:       local.root,
		SetAnnotations:    map[string]string{sourceAnnotation: sourceLocal},
		PackageFileName:   kptfile.FileName,
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
		FileSkipFunc:      skip,
		FileSystem:        filesysOf(local),
	}
	var destIn kio.Reader = dest
	if m.localAtRead {
		destIn = commentingReader{dest}
	}
	kept := 0
	err := kio.Pipeline{
		Inputs: []kio.Reader{destIn, reader(origin, sourceOrigin), reader(updated, sourceUpdated)},
		Filters: []kio.Filter{kio.FilterFunc(func(nodes []*yaml.RNode) ([]*yaml.RNode, error) {
			out, err := m.merge3(rel, nodes)
			kept += len(out)
			return out, err
		})},
		Outputs: []kio.Writer{dest},
		// one file's resources may all go (kpt's whole-package merge
		// stops only when none is left in the package: see above)
		ContinueOnEmptyResult: skip != nil,
	}.Execute()
	return kept, err
}

// prunedReader reads a package without the resources under the local
// package's subpackage directories (matched by path prefix, as kpt does).
type prunedReader struct {
	r        kio.LocalPackageReader
	excluded []string
}

func (p *prunedReader) Read() ([]*yaml.RNode, error) {
	nodes, err := p.r.Read()
	if err != nil {
		return nil, err
	}
	if nodes, err = addMergeComments(nodes); err != nil {
		return nil, err
	}
	out := nodes[:0]
	for _, n := range nodes {
		if err := kioutil.CopyLegacyAnnotations(n); err != nil {
			return nil, err
		}
		pth := n.GetAnnotations()[kioutil.PathAnnotation]
		skip := false
		for _, e := range p.excluded {
			if strings.HasPrefix(pth, e) {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, n)
		}
	}
	return out, nil
}

// triple is one resource as it is in the three trees (nil where absent).
type triple struct{ origin, updated, local *yaml.RNode }

// merge3 groups the resources of the three trees by kpt's identity and
// merges each group, in the order the groups were first seen (local's
// resources, then origin's, then updated's), as kpt does.
func (m *merger) merge3(rel string, nodes []*yaml.RNode) ([]*yaml.RNode, error) {
	var order []*triple
	index := map[string]*triple{}
	for _, n := range nodes {
		key, ok := matchKey(n)
		t := index[key]
		if !ok || t == nil {
			t = &triple{}
			order = append(order, t)
			if ok {
				index[key] = t
			}
		}
		src := n.GetAnnotations()[sourceAnnotation]
		slot := map[string]**yaml.RNode{sourceLocal: &t.local, sourceOrigin: &t.origin, sourceUpdated: &t.updated}[src]
		if slot == nil {
			return nil, fmt.Errorf("resource without a merge source")
		}
		if *slot != nil {
			return nil, fmt.Errorf("found duplicate %q resources in file %q", map[string]string{
				sourceLocal: "local", sourceOrigin: "original upstream", sourceUpdated: "updated upstream"}[src],
				n.GetAnnotations()[kioutil.PathAnnotation])
		}
		*slot = n
	}
	var out []*yaml.RNode
	for _, t := range order {
		n, err := m.mergeTriple(rel, t)
		if err != nil {
			return nil, err
		}
		if n != nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// mergeTriple decides a resource's fate as kpt does: added on one side,
// kept; deleted upstream, deleted locally only if local did not change it;
// deleted locally, not brought back; else merged field by field.
func (m *merger) mergeTriple(rel string, t *triple) (*yaml.RNode, error) {
	switch {
	case t.origin == nil && t.updated == nil && t.local != nil:
		return t.local, nil
	case t.origin == nil && t.updated != nil && t.local == nil:
		return t.updated, nil
	case t.updated == nil && t.local == nil:
		return nil, nil
	case t.origin != nil && t.updated == nil:
		same, err := sameResource(t.origin, t.local)
		if err != nil || same {
			return nil, err
		}
		return t.local, nil
	case t.origin != nil && t.local == nil:
		return nil, nil
	}
	// A resource neither side changed must come out as it went in: kyaml's
	// walk drops list elements that lack their merge key (an env entry
	// without a name), so its result is checked against the local copy.
	var unchanged *yaml.RNode
	if sameContent(t.origin, t.updated) && sameContent(t.origin, t.local) {
		// when upstream did not change it at all, the walk would give the
		// local resource back unchanged, unless it holds a value kyaml's
		// walk rewrites (a null, which it drops; a string YAML 1.1 reads
		// as a boolean or number, which it quotes)
		if equalNodes(t.origin.YNode(), t.updated.YNode(), true, true, skipBookkeeping) && !walkRewrites(t.local.YNode()) {
			return t.local, nil
		}
		unchanged = t.local.Copy()
	}
	v := &conflictVisitor{side: m.side, ignore: bookkeepingNodes(t.origin, t.updated)}
	file := path.Join(rel, t.local.GetAnnotations()[kioutil.PathAnnotation])
	resource := resourceName(t.local)
	pruned := pruneSame(t.local.YNode(), t.origin.YNode(), t.updated.YNode())
	merged, err := walk.Walker{
		Visitor:            v,
		VisitKeysAsScalars: true,
		Sources:            []*yaml.RNode{t.local, t.origin, t.updated},
	}.Walk()
	pruned.restore()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", file, resource, err)
	}
	m.conflicts = append(m.conflicts, v.resolve(file, resource, t.updated, t.origin, nil)...)
	if unchanged != nil && !sameData(merged, unchanged) {
		return unchanged, nil
	}
	return merged, nil
}

// sameData compares two resources as data (styles, quotes and comments
// aside).
func sameData(a, b *yaml.RNode) bool {
	if a == nil || b == nil {
		return a == b
	}
	var x, y any
	if a.YNode().Decode(&x) != nil || b.YNode().Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// sameResource compares two resources as kpt does: their YAML as kyaml
// writes it (comments included), without kyaml's bookkeeping annotations.
func sameResource(a, b *yaml.RNode) (bool, error) {
	var s [2]string
	for i, n := range []*yaml.RNode{a, b} {
		c, err := yaml.Parse(n.MustString())
		if err != nil {
			return false, err
		}
		for _, k := range []string{sourceAnnotation, kioutil.PathAnnotation, kioutil.IndexAnnotation,
			kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation, //nolint:staticcheck // kpt clears them too
			kioutil.InternalAnnotationsMigrationResourceIDAnnotation, blueprintAnnotation} {
			if err := c.PipeE(yaml.ClearAnnotation(k)); err != nil {
				return false, err
			}
		}
		// origin's upstream identifier is added in memory, after kyaml's
		// own annotations: the order of annotations is not compared
		if ann, err := c.Pipe(yaml.Lookup(yaml.MetadataField, yaml.AnnotationsField)); err == nil && ann != nil {
			sortMapping(ann.YNode())
		}
		s[i] = c.MustString()
	}
	return s[0] == s[1], nil
}

// sameContent compares two resources' YAML trees (values, tags, comments;
// not styles) without kyaml's bookkeeping annotations.
func sameContent(a, b *yaml.RNode) bool {
	return equalNodes(a.YNode(), b.YNode(), false, false, skipBookkeeping)
}

// skipBookkeeping leaves out the annotations kpt ignores when it compares
// resources: kyaml's path, index and merge source, and Config Connector's
// blueprint.
func skipBookkeeping(parent, key *yaml.Node) bool {
	switch key.Value {
	case sourceAnnotation, kioutil.PathAnnotation, kioutil.IndexAnnotation,
		kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation, //nolint:staticcheck // kpt clears them too
		kioutil.InternalAnnotationsMigrationResourceIDAnnotation, blueprintAnnotation:
		return true
	}
	return false
}

// bookkeepingNodes are the value nodes of the annotations kyaml's readers
// add (path, index, …) in the given resources: a difference there is no
// conflict.
func bookkeepingNodes(ns ...*yaml.RNode) map[*yaml.Node]bool {
	out := map[*yaml.Node]bool{}
	for _, n := range ns {
		if n == nil {
			continue
		}
		ann, err := n.Pipe(yaml.Lookup(yaml.MetadataField, yaml.AnnotationsField))
		if err != nil || ann == nil || ann.YNode().Kind != yaml.MappingNode {
			continue
		}
		c := ann.YNode().Content
		for i := 0; i+1 < len(c); i += 2 {
			k := c[i].Value
			if strings.HasPrefix(k, "internal.config.kubernetes.io/") || k == kioutil.LegacyPathAnnotation ||
				k == kioutil.LegacyIndexAnnotation || k == sourceAnnotation || k == upstreamIdentifier { //nolint:staticcheck // kyaml still writes them
				out[c[i+1]] = true
			}
		}
	}
	return out
}

// sortMapping orders a mapping's entries by key.
func sortMapping(m *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return
	}
	type kv struct{ k, v *yaml.Node }
	var es []kv
	for i := 0; i+1 < len(m.Content); i += 2 {
		es = append(es, kv{m.Content[i], m.Content[i+1]})
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].k.Value < es[j].k.Value })
	for i, e := range es {
		m.Content[2*i], m.Content[2*i+1] = e.k, e.v
	}
}

// walkRewrites reports whether kyaml's merge walk would change a resource
// it merges with itself: a null value (dropped) or a plain string that YAML
// 1.1 reads as another type (quoted).
func walkRewrites(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.ScalarNode {
		return n.ShortTag() == yaml.NodeTagNull || (yaml.IsYNodeString(n) && n.Style == 0 && yaml.IsYaml1_1NonString(n))
	}
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if walkRewrites(c) {
			return true
		}
	}
	return false
}

// roundTripComments writes the merge comments into those of files (of the
// tree) that hold a comment on a line of its own.
func roundTripComments(t tree, files []string) error {
	pick := map[string]bool{}
	for _, f := range files {
		b, err := t.read(f)
		if err != nil {
			continue // not in this tree
		}
		if hasOwnLineComment(b) {
			pick[filepath.FromSlash(f)] = true
		}
	}
	if len(pick) == 0 {
		return nil
	}
	rw := &kio.LocalPackageReadWriter{
		PackagePath:       t.root,
		PackageFileName:   kptfile.FileName,
		PreserveSeqIndent: true,
		WrapBareSeqNode:   true,
		FileSkipFunc:      func(p string) bool { return !pick[p] },
		FileSystem:        filesysOf(t),
	}
	// best effort, as kpt: a file that does not read fails the merge later
	_ = kio.Pipeline{
		Inputs:                []kio.Reader{rw},
		Filters:               []kio.Filter{kio.FilterFunc(addMergeComments)},
		Outputs:               []kio.Writer{rw},
		ContinueOnEmptyResult: true,
	}.Execute()
	return nil
}

// hasOwnLineComment reports whether a YAML text has a line that is only a
// comment.
func hasOwnLineComment(b []byte) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '#' {
			return true
		}
	}
	return false
}
