package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/index"
)

// Bounds on a diff page: a file larger than MaxDiffFileBytes is listed
// without its lines, the files read add up to at most MaxDiffBytes (the
// rest are listed only), and at most MaxDiffLines lines are shown.
const (
	MaxDiffFileBytes = 1 << 20
	MaxDiffBytes     = 8 << 20
	MaxDiffLines     = 20000
	diffContext      = 3
)

// Diff is what changed in a package between two of its revisions.
type Diff struct {
	Package            string
	From, To           int // revisions
	FromTag, ToTag     string
	FromCommit, Commit string
	Files              []FileDiff
	Truncated          bool // MaxDiffLines reached
}

// FileDiff is one file's change.
type FileDiff struct {
	From, To      string // paths in the package ("" when added / deleted)
	Binary, Large bool   // no lines shown
	Added, Del    int
	Lines         []DiffLine
}

// Name is the file's path (its new one when renamed).
func (f FileDiff) Name() string {
	if f.To != "" {
		return f.To
	}
	return f.From
}

// DiffLine is one line of a unified diff: Op is ' ', '+', '-' or '…' (a
// run of unchanged lines left out).
type DiffLine struct {
	Op   string
	Text string
}

// DiffTrees computes the diff of the package at dir between commits from
// and to of repo, read from git. A directory absent at a commit diffs as
// empty.
func DiffTrees(ctx context.Context, repo *git.Repository, from, to plumbing.Hash, dir string) ([]FileDiff, bool, error) {
	a, err := packageTree(repo, from, dir)
	if err != nil {
		return nil, false, err
	}
	b, err := packageTree(repo, to, dir)
	if err != nil {
		return nil, false, err
	}
	changes, err := object.DiffTreeWithOptions(ctx, a, b, object.DefaultDiffTreeOptions)
	if err != nil {
		return nil, false, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	var out []FileDiff
	budget, lines := int64(MaxDiffBytes), 0
	truncated := false
	for _, ch := range changes {
		fd := FileDiff{From: ch.From.Name, To: ch.To.Name}
		size, err := changeSize(ch)
		if err != nil {
			return nil, false, err
		}
		if size > MaxDiffFileBytes || size > budget || truncated {
			fd.Large = true
			out = append(out, fd)
			continue
		}
		budget -= size
		patch, err := ch.PatchContext(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("diff %s: %w", fd.Name(), err)
		}
		for _, fp := range patch.FilePatches() {
			if fp.IsBinary() {
				fd.Binary = true
				continue
			}
			fd.Lines, fd.Added, fd.Del = unified(fp.Chunks())
		}
		if lines+len(fd.Lines) > MaxDiffLines {
			fd.Lines, truncated = nil, true
			fd.Large = true
		}
		lines += len(fd.Lines)
		out = append(out, fd)
	}
	return out, truncated, nil
}

// packageTree is the tree of dir at commit (an empty tree when absent).
func packageTree(repo *git.Repository, commit plumbing.Hash, dir string) (*object.Tree, error) {
	h, err := gitstore.TreeHashIn(repo.Storer, commit, dir)
	if errors.Is(err, gitstore.ErrNotFound) || (err == nil && h.IsZero()) {
		return &object.Tree{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", dir, commit, err)
	}
	return repo.TreeObject(h)
}

// changeSize is the bytes a change's patch reads.
func changeSize(ch *object.Change) (int64, error) {
	from, to, err := ch.Files()
	if err != nil {
		return 0, fmt.Errorf("diff %s: %w", ch.To.Name, err)
	}
	var n int64
	for _, f := range []*object.File{from, to} {
		if f != nil {
			n += f.Size
		}
	}
	return n, nil
}

// unified turns a file's chunks into diff lines, unchanged runs cut down
// to diffContext lines around each change.
func unified(chunks []fdiff.Chunk) ([]DiffLine, int, int) {
	var out []DiffLine
	added, deleted := 0, 0
	for i, c := range chunks {
		text := strings.TrimSuffix(c.Content(), "\n")
		ls := strings.Split(text, "\n")
		switch c.Type() {
		case fdiff.Add:
			added += len(ls)
			for _, l := range ls {
				out = append(out, DiffLine{Op: "+", Text: l})
			}
		case fdiff.Delete:
			deleted += len(ls)
			for _, l := range ls {
				out = append(out, DiffLine{Op: "-", Text: l})
			}
		default:
			out = append(out, contextLines(ls, i > 0, i < len(chunks)-1)...)
		}
	}
	return out, added, deleted
}

// contextLines keeps the unchanged lines next to a change: the first
// ones after a change (after), the last ones before one (before); a run
// left out is one "…" line.
func contextLines(ls []string, after, before bool) []DiffLine {
	keep := func(l []string) []DiffLine {
		out := make([]DiffLine, len(l))
		for i, s := range l {
			out[i] = DiffLine{Op: " ", Text: s}
		}
		return out
	}
	switch {
	case !after && !before:
		return nil
	case after && before && len(ls) <= 2*diffContext, after != before && len(ls) <= diffContext:
		return keep(ls)
	}
	var out []DiffLine
	if after {
		out = append(out, keep(ls[:diffContext])...)
	}
	out = append(out, DiffLine{Op: "…"})
	if before {
		out = append(out, keep(ls[len(ls)-diffContext:])...)
	}
	return out
}

// ErrNoRevision is returned for a revision the package does not have.
var ErrNoRevision = errors.New("no such revision")

// Revision is the package's revision n.
func (p *Package) Revision(n int) (index.Revision, bool) {
	for _, r := range p.Revisions {
		if r.Revision == n {
			return r, true
		}
	}
	return index.Revision{}, false
}

// RevisionDiff is the diff of package p of r between revisions from and
// to, read from repo (the repository's git cache).
func RevisionDiff(ctx context.Context, repo *git.Repository, r *Repository, p *Package, from, to int) (*Diff, error) {
	a, okA := p.Revision(from)
	b, okB := p.Revision(to)
	if !okA || !okB {
		return nil, fmt.Errorf("%s: %w (v%d, v%d)", p.Name, ErrNoRevision, from, to)
	}
	files, truncated, err := DiffTrees(ctx, repo, plumbing.NewHash(a.Commit), plumbing.NewHash(b.Commit), r.PackageDir(p.Name))
	if err != nil {
		return nil, err
	}
	return &Diff{Package: p.Name, From: from, To: to, FromTag: a.Tag, ToTag: b.Tag, FromCommit: a.Commit,
		Commit: b.Commit, Files: files, Truncated: truncated}, nil
}
