package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/words"
)

// ErrPackageMissing is returned (wrapped) by loadPackage when the commit has
// no Kptfile at the package directory.
var ErrPackageMissing = errors.New("package not found")

// LoadPackage reads the package directory dir (slash-separated, relative to
// the repository root) and everything below it, subpackages included, at
// commit from the git cache. Paths in the map are relative to dir. A commit
// without dir/Kptfile gives errPackageMissing; a commit missing from the
// cache gives gitstore.ErrNotFound; a tree over the cache's bounds gives
// gitstore.ErrTreeTooLarge (both wrapped).
func LoadPackage(ctx context.Context, cache *gitstore.Cache, commit plumbing.Hash, dir string) (map[string][]byte, error) {
	if err := CheckPackageAt(ctx, cache, commit, dir); err != nil {
		return nil, err
	}
	files, err := cache.ReadTree(ctx, commit, dir)
	if err != nil {
		if errors.Is(err, gitstore.ErrTreeTooLarge) {
			return nil, fmt.Errorf("package %s at %s is larger than this server reads: %w", dir, words.ShortSHA(commit.String()), err)
		}
		return nil, fmt.Errorf("read package %s at %s: %w", dir, words.ShortSHA(commit.String()), err)
	}
	return files, nil
}

// CheckPackageAt tells a commit absent from the cache (gitstore.ErrNotFound)
// from a package absent from the commit (errPackageMissing), without reading
// the tree's blobs.
func CheckPackageAt(ctx context.Context, cache *gitstore.Cache, commit plumbing.Hash, dir string) error {
	return cache.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(commit)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return fmt.Errorf("commit %s is not in the git cache of %s (fetch it first): %w", commit, cache.Name(), gitstore.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read commit %s: %w", commit, err)
		}
		t, err := c.Tree()
		if err != nil {
			return fmt.Errorf("read tree of %s: %w", commit, err)
		}
		e, err := t.FindEntry(path.Join(dir, packages.KptfileName))
		switch {
		case errors.Is(err, object.ErrEntryNotFound), errors.Is(err, object.ErrDirectoryNotFound):
			return fmt.Errorf("%w: no %s/%s at %s", ErrPackageMissing, dir, packages.KptfileName, words.ShortSHA(commit.String()))
		case err != nil:
			return fmt.Errorf("look up %s/%s at %s: %w", dir, packages.KptfileName, words.ShortSHA(commit.String()), err)
		case !e.Mode.IsFile():
			return fmt.Errorf("%w: %s/%s at %s is not a file", ErrPackageMissing, dir, packages.KptfileName, words.ShortSHA(commit.String()))
		}
		return nil
	})
}

// CommitMessage reads a commit's message and author name from the cache.
func CommitMessage(ctx context.Context, cache *gitstore.Cache, commit plumbing.Hash) (msg, author string, err error) {
	err = cache.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(commit)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", commit, err)
		}
		msg, author = c.Message, c.Author.Name
		return nil
	})
	return msg, author, err
}

// pkgFS is a package loaded into an in-memory kyaml file system, at the same
// path as in the repository (so render errors name repository paths).
type pkgFS struct {
	FS   filesys.FileSystem
	Root string // absolute path of the package in fs: "/" + dir
}

// NewPkgFS writes files (relative to dir) into a fresh in-memory file
// system that holds every name git accepts (render.NewMemFS).
func NewPkgFS(dir string, files map[string][]byte) (*pkgFS, error) {
	p := &pkgFS{FS: render.NewMemFS(), Root: "/" + strings.Trim(dir, "/")}
	if err := p.FS.MkdirAll(p.Root); err != nil {
		return nil, fmt.Errorf("in-memory package %s: %w", dir, err)
	}
	for _, name := range SortedPaths(files) {
		if err := p.FS.WriteFile(path.Join(p.Root, name), files[name]); err != nil {
			return nil, fmt.Errorf("in-memory package %s: write %s: %w", dir, name, err)
		}
	}
	return p, nil
}

// Files reads every file of the package back, keyed by its slash-separated
// path relative to the package: the form Session.CommitPackage takes.
func (p *pkgFS) Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := p.FS.Walk(p.Root, func(abs string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(p.Root, abs)
		if err != nil {
			return err
		}
		data, err := p.FS.ReadFile(abs)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read rendered package %s: %w", strings.TrimPrefix(p.Root, "/"), err)
	}
	return out, nil
}

func SortedPaths[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Positions in package files, for annotations.

// DocCache keeps the decoded documents of package files while annotations
// are placed (many results name the same file).
type DocCache struct {
	Files  map[string][]byte
	parsed map[string][]*yaml.Node
}

func NewDocCache(files map[string][]byte) *DocCache {
	return &DocCache{Files: files, parsed: map[string][]*yaml.Node{}}
}

// Docs returns the documents of a file; ok is false when there is no such file.
func (c *DocCache) Docs(name string) ([]*yaml.Node, bool) {
	data, ok := c.Files[name]
	if !ok {
		return nil, false
	}
	d, seen := c.parsed[name]
	if !seen {
		d = YAMLDocs(data)
		c.parsed[name] = d
	}
	return d, true
}

// YAMLDocs decodes the documents of a YAML (or JSON) file, skipping empty
// ones as kio does when it numbers them (config.kubernetes.io/index). Line
// numbers are the file's. A file that does not parse gives the documents
// read before the error.
func YAMLDocs(data []byte) []*yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for len(docs) < 10000 {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && (root.Tag == yaml.NodeTagNull || root.Value == "") {
			continue
		}
		docs = append(docs, root)
	}
	return docs
}

// FindDoc picks the document a result refers to: the one at index (as
// kio numbers them) when it matches ref, else the only one matching ref,
// else the one at index, else the only document.
func FindDoc(docs []*yaml.Node, index int, ref *yaml.ResourceIdentifier) *yaml.Node {
	atIndex := (*yaml.Node)(nil)
	if index >= 0 && index < len(docs) {
		atIndex = docs[index]
	}
	if ref != nil && (ref.Kind != "" || ref.Name != "") {
		if atIndex != nil && DocMatches(atIndex, ref) {
			return atIndex
		}
		var match *yaml.Node
		for _, d := range docs {
			if DocMatches(d, ref) {
				if match != nil {
					match = nil
					break
				}
				match = d
			}
		}
		if match != nil {
			return match
		}
	}
	if atIndex != nil {
		return atIndex
	}
	if len(docs) == 1 {
		return docs[0]
	}
	return nil
}

func DocMatches(doc *yaml.Node, ref *yaml.ResourceIdentifier) bool {
	get := func(keys ...string) string {
		if n := mapPath(doc, keys...); n != nil && n.Kind == yaml.ScalarNode {
			return n.Value
		}
		return ""
	}
	return (ref.Kind == "" || get("kind") == ref.Kind) &&
		(ref.Name == "" || get("metadata", "name") == ref.Name) &&
		(ref.Namespace == "" || get("metadata", "namespace") == ref.Namespace) &&
		(ref.APIVersion == "" || get("apiVersion") == ref.APIVersion)
}

// mapPath follows mapping keys from n.
func mapPath(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// PositionInFile finds the line and column of a result in a file: the
// document it names (findDoc), at its field. Function results often carry
// index 0 whatever the document (the field "index" is optional), so when
// the field is not in that document and no resource is named, the first
// document holding the whole field path is taken.
func PositionInFile(docs []*yaml.Node, index int, ref *yaml.ResourceIdentifier, field string) (line, col int) {
	doc := FindDoc(docs, index, ref)
	line, col, full := FieldPosition(doc, field)
	if full || strings.TrimSpace(field) == "" || (ref != nil && ref.Kind != "" && ref.Name != "") {
		return line, col
	}
	for _, d := range docs {
		if l, c, ok := FieldPosition(d, field); ok {
			return l, c
		}
	}
	return line, col
}

// FieldPosition finds the line and column of a field path in a resource:
// dotted keys ("spec.replicas"; keys holding dots such as
// "metadata.annotations.config.kubernetes.io/index" are found too), list
// positions ("containers[0]", "containers.0") and list matches
// ("containers[name=upf]"); a trailing " # comment" is ignored. The deepest
// part found is returned (the resource's own position when none is; line 1
// without a resource); full reports that the whole path was found.
func FieldPosition(doc *yaml.Node, field string) (line, col int, full bool) {
	if doc == nil {
		return 1, 0, false
	}
	line, col = doc.Line, doc.Column
	if i := strings.Index(field, " #"); i >= 0 {
		field = field[:i]
	}
	segs := SplitFieldPath(strings.TrimPrefix(strings.TrimSpace(field), "."))
	n := doc
	for i := 0; i < len(segs); {
		seg := segs[i]
		switch n.Kind {
		case yaml.MappingNode:
			key, val, used := mappingEntry(n, segs[i:])
			if key == nil {
				return line, col, false
			}
			line, col, n = key.Line, key.Column, val
			i += used
		case yaml.SequenceNode:
			el := sequenceElement(n, seg)
			if el == nil {
				return line, col, false
			}
			line, col, n = el.Line, el.Column, el
			i++
		default:
			return line, col, false
		}
	}
	return line, col, true
}

// mappingEntry finds the key matching the first segments of segs, trying
// longer dotted keys when the short one is absent ("a.b" as one key).
func mappingEntry(m *yaml.Node, segs []string) (key, val *yaml.Node, used int) {
	for n := 1; n <= len(segs); n++ {
		name := strings.Join(segs[:n], ".")
		if strings.HasPrefix(segs[n-1], "[") {
			break
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == name {
				return m.Content[i], m.Content[i+1], n
			}
		}
	}
	return nil, nil, 0
}

// sequenceElement finds "[0]", "0", "[name=value]" or "[=value]" in a list.
func sequenceElement(s *yaml.Node, seg string) *yaml.Node {
	sel := strings.TrimSuffix(strings.TrimPrefix(seg, "["), "]")
	if k, v, ok := strings.Cut(sel, "="); ok {
		for _, el := range s.Content {
			if k == "" && el.Kind == yaml.ScalarNode && el.Value == v {
				return el
			}
			if f := mapPath(el, k); f != nil && f.Kind == yaml.ScalarNode && f.Value == v {
				return el
			}
		}
		return nil
	}
	i, err := strconv.Atoi(sel)
	if err != nil || i < 0 || i >= len(s.Content) {
		return nil
	}
	return s.Content[i]
}

// SplitFieldPath splits "a.b[0].c[name=x.y]" into a, b, [0], c, [name=x.y].
func SplitFieldPath(p string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	depth := 0
	for _, r := range p {
		switch {
		case r == '[' && depth == 0:
			flush()
			depth++
			cur.WriteRune(r)
		case r == ']' && depth > 0:
			depth--
			cur.WriteRune(r)
			if depth == 0 {
				flush()
			}
		case r == '.' && depth == 0:
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// FunctionPosition finds the line of the nth (0-based) pipeline entry of
// kind ("mutator" or "validator") running fn (an image, matched with or
// without kpt's default registry, or an exec line) in a Kptfile.
func FunctionPosition(kptfile []byte, kind, image, exec string, nth int) (line int, ok bool) {
	docs := YAMLDocs(kptfile)
	if len(docs) == 0 {
		return 0, false
	}
	list := mapPath(docs[0], "pipeline", kind+"s")
	if list == nil || list.Kind != yaml.SequenceNode {
		return 0, false
	}
	seen := 0
	for _, el := range list.Content {
		var f *yaml.Node
		if exec != "" {
			f = mapPath(el, "exec")
			if f == nil || f.Value != exec {
				continue
			}
		} else {
			f = mapPath(el, "image")
			if f == nil || (f.Value != image && "gcr.io/kpt-fn/"+f.Value != image) {
				continue
			}
		}
		if seen == nth {
			return f.Line, true
		}
		seen++
	}
	return 0, false
}
