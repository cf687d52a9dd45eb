package index

import (
	"context"
	"fmt"
	"slices"
)

// Problem is a revision of the index that the repository no longer bears out.
type Problem struct {
	Tag    string
	Kind   string // ProblemMoved, ProblemContent, ProblemMissing, ProblemUnlisted
	Detail string
}

// Problem kinds.
const (
	ProblemMoved    = "tag moved"       // the tag points at another commit than the index says
	ProblemContent  = "content changed" // the package tree at the commit does not match the digest
	ProblemMissing  = "tag missing"     // the index lists a tag the repository does not have
	ProblemUnlisted = "not in index"    // the repository has a revision the index does not list
)

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Tag, p.Kind, p.Detail) }

// Verify recomputes every revision of idx from src: a tag moved to another
// commit, a tree whose digest differs, a tag gone, or a tag the index does
// not list is a problem. root is the repository's packages.root. No problems: the index is true to the repository.
func Verify(ctx context.Context, idx *Index, src Source, root string) ([]Problem, error) {
	tags, err := src.Tags(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify: list tags: %w", err)
	}
	actual := map[string]Tag{}
	for _, t := range tags {
		actual[tagName(t)] = t
	}
	listed := map[string]bool{}
	b := &builder{src: src, root: root, digests: map[string]string{}}
	var out []Problem
	for _, p := range idx.Packages {
		for _, r := range p.Revisions {
			listed[r.Tag] = true
			t, ok := actual[r.Tag]
			switch {
			case !ok:
				out = append(out, Problem{Tag: r.Tag, Kind: ProblemMissing, Detail: "the repository has no such tag"})
				continue
			case t.Commit != r.Commit:
				out = append(out, Problem{Tag: r.Tag, Kind: ProblemMoved, Detail: fmt.Sprintf("index says %s, the tag points at %s", r.Commit, t.Commit)})
			}
			d, err := b.digest(ctx, r.Commit, b.dir(p.Name))
			if err != nil {
				out = append(out, Problem{Tag: r.Tag, Kind: ProblemContent, Detail: fmt.Sprintf("cannot read the package at %s: %v", r.Commit, err)})
				continue
			}
			if d != r.Digest {
				out = append(out, Problem{Tag: r.Tag, Kind: ProblemContent, Detail: fmt.Sprintf("index says %s, the tree at %s is %s", r.Digest, r.Commit, d)})
			}
		}
	}
	for name := range actual {
		if !listed[name] {
			out = append(out, Problem{Tag: name, Kind: ProblemUnlisted, Detail: "published but missing from the index"})
		}
	}
	slices.SortFunc(out, func(a, b Problem) int {
		if a.Tag != b.Tag {
			if a.Tag < b.Tag {
				return -1
			}
			return 1
		}
		if a.Kind < b.Kind {
			return -1
		}
		if a.Kind > b.Kind {
			return 1
		}
		return 0
	})
	return out, nil
}
