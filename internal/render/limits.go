package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/render/yamlsize"
)

// LimitError is an input beyond one of the render limits.
type LimitError struct {
	What  string // "files", "bytes of KRM files", "YAML nesting depth"
	Where string // package-relative path, if one file is at fault
	Limit int64
	Got   int64
	// Exact is false when counting stopped at the first value over the limit.
	Exact bool
}

func (e *LimitError) Error() string {
	where := ""
	if e.Where != "" {
		where = e.Where + ": "
	}
	more := ""
	if !e.Exact {
		more = " at least"
	}
	return fmt.Sprintf("%sinput too large: %s is%s %d, the limit is %d", where, e.What, more, e.Got, e.Limit)
}

var errStopWalk = errors.New("stop")

// checkTreeLimits bounds the package tree before anything is parsed.
func (r *renderer) checkTreeLimits() error {
	if r.maxFiles < 0 && r.maxBytes < 0 && r.maxNodes < 0 {
		return nil
	}
	var files int
	var size, nodes int64
	var lim error
	err := r.fsys.Walk(r.root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if info.Name() == ".git" && path != r.root {
				return filepath.SkipDir
			}
			return nil
		}
		files++
		if r.maxFiles >= 0 && files > r.maxFiles {
			lim = &LimitError{What: "the number of files in the package tree", Limit: int64(r.maxFiles), Got: int64(files)}
			return errStopWalk
		}
		if isKRMFileName(info.Name()) {
			size += info.Size()
			if r.maxBytes >= 0 && size > r.maxBytes {
				lim = &LimitError{What: "the size of the package's KRM files in bytes", Limit: r.maxBytes, Got: size}
				return errStopWalk
			}
			if r.maxNodes >= 0 {
				b, err := r.fsys.ReadFile(path)
				if err != nil {
					return err
				}
				nodes += yamlsize.EstimateNodes(b)
				if nodes > r.maxNodes {
					rel, _ := filepath.Rel(r.root, path)
					lim = &LimitError{What: "the YAML nodes of the package's KRM files (counted before parsing, " +
						"see docs/limits.md)", Where: filepath.ToSlash(rel), Limit: r.maxNodes, Got: nodes}
					return errStopWalk
				}
			}
		}
		return nil
	})
	if lim != nil {
		return lim
	}
	return err
}

// checkNodeLimits bounds each resource read: its nesting depth, and what
// its aliases expand to (before anything turns it into values).
func (r *renderer) checkNodeLimits(pkg *pkgNode, nodes []*yaml.RNode) error {
	for _, n := range nodes {
		where := func() string {
			p, _ := fileAnnotations(n)
			return filepath.ToSlash(filepath.Join(pkg.rel, p))
		}
		if r.maxDepth > 0 {
			if d := yamlDepth(n.YNode(), 0, r.maxDepth+1); d > r.maxDepth {
				return &LimitError{What: "YAML nesting depth", Where: where(), Limit: int64(r.maxDepth), Got: int64(d)}
			}
		}
		if _, err := yamlsize.Expand(n.YNode(), r.aliasBounds); err != nil {
			var ae *yamlsize.AliasError
			if errors.As(err, &ae) && ae.Limit > 0 {
				return &LimitError{What: ae.What, Where: where(), Limit: ae.Limit, Got: ae.Got}
			}
			return fmt.Errorf("%s: %w", where(), err)
		}
	}
	return nil
}

func isKRMFileName(name string) bool {
	for _, g := range matchAllKRM {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}

// yamlDepth returns the nesting depth of n, giving up past stop. Aliases are
// not followed.
func yamlDepth(n *yaml.Node, d, stop int) int {
	if n == nil || d >= stop {
		return d
	}
	switch n.Kind {
	case yaml.DocumentNode:
		best := d
		for _, c := range n.Content {
			if x := yamlDepth(c, d, stop); x > best {
				best = x
			}
		}
		return best
	case yaml.MappingNode, yaml.SequenceNode:
		best := d + 1
		for _, c := range n.Content {
			if x := yamlDepth(c, d+1, stop); x > best {
				best = x
				if best >= stop {
					return best
				}
			}
		}
		return best
	}
	return d
}
