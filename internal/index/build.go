package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

// Options of Build.
type Options struct {
	// Repository is what the index names as its repository (owner/name).
	Repository string
	// Root is the repository's packages.root: package P lives in Root/P
	// ("" or "." for the repository's top).
	Root string
	// Previous is the index as it stands, if any: a revision whose tag
	// still points at the same commit keeps its digest without reading
	// its tree again, and its approvers (which git does not hold); a
	// package whose latest revision is unchanged keeps its description,
	// keywords, site and upstream.
	Previous *Index
	// Approvers adds approvers by tag (the bot knows them at publish).
	Approvers map[string][]string
	// Downstreams are the packages known to track each package, by name:
	// the whole of what is known (a package it leaves out has none). Nil
	// means unknown: each package keeps the downstreams Previous lists
	// (an offline build cannot see other repositories).
	Downstreams map[string][]Downstream
	// Unknown, with Downstreams, names the repositories whose facts are
	// not known (a process that has not visited them yet, a look-up that
	// failed): the downstreams Previous lists in such a repository are
	// kept beside Downstreams (a degraded view never overwrites a good
	// one). Nil: every repository's facts are known.
	Unknown func(repository string) bool
	// Rollouts are the rollouts of the packages, by name: the whole of
	// what is known (a package it leaves out has none; a nil entry is a
	// rollout whose state could not be read, kept as Previous says). Nil
	// means unknown: each package keeps the rollout Previous says (an
	// offline build has no rollout record).
	Rollouts map[string]*Rollout
}

// treeIDer is a Source that can name a directory's tree cheaply (git's
// tree hash) and read a tree by that name: equal ids give equal digests,
// so a tree shared by many revisions is read once, and a tree read is
// looked up once.
type treeIDer interface {
	TreeID(ctx context.Context, commit, dir string) (string, error)
	TreeByID(ctx context.Context, id string) (map[string][]byte, error)
}

// Build reads every tag <package>/v<N> of src and returns the index.
func Build(ctx context.Context, src Source, opts Options) (*Index, error) {
	tags, err := src.Tags(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: list tags: %w", err)
	}
	prev := previousRevisions(opts.Previous)
	prevPkgs := map[string]Package{}
	if opts.Previous != nil {
		for _, p := range opts.Previous.Packages {
			prevPkgs[p.Name] = p
		}
	}
	byPkg := map[string][]Tag{}
	for _, t := range tags {
		byPkg[t.Package] = append(byPkg[t.Package], t)
	}
	names := make([]string, 0, len(byPkg))
	for n := range byPkg {
		names = append(names, n)
	}
	slices.Sort(names)
	b := &builder{src: src, root: opts.Root, digests: map[string]string{}}
	idx := &Index{APIVersion: APIVersion, Kind: Kind, Repository: opts.Repository, Packages: make([]Package, 0, len(names))}
	for _, name := range names {
		pkgTags := byPkg[name]
		slices.SortFunc(pkgTags, func(a, b Tag) int { return b.Revision - a.Revision })
		p := Package{Name: name, Downstreams: packageDownstreams(opts, prevPkgs[name].Downstreams, name),
			Rollout: packageRollout(opts, prevPkgs[name].Rollout, name)}
		for _, t := range pkgTags {
			tag := tagName(t)
			r := Revision{Revision: t.Revision, Tag: tag, Commit: t.Commit, Published: t.Time.UTC()}
			if old, ok := prev[tag]; ok && old.Commit == t.Commit && strings.HasPrefix(old.Digest, DigestPrefix) {
				r.Digest, r.Approvers = old.Digest, old.Approvers
			} else if r.Digest, err = b.digest(ctx, t.Commit, b.dir(name)); err != nil {
				return nil, fmt.Errorf("index: %s: %w", tag, err)
			}
			r.Approvers = mergeApprovers(r.Approvers, opts.Approvers[tag])
			p.Revisions = append(p.Revisions, r)
		}
		if old, ok := prevPkgs[name]; ok && len(old.Revisions) > 0 && old.Revisions[0].Tag == p.Revisions[0].Tag && old.Revisions[0].Commit == p.Revisions[0].Commit {
			// the latest revision is the one the previous index described
			p.Description, p.Keywords, p.Site, p.Upstream = old.Description, old.Keywords, old.Site, old.Upstream
		} else if err := b.describe(ctx, &p, pkgTags[0].Commit); err != nil {
			return nil, fmt.Errorf("index: %s: %w", name, err)
		}
		idx.Packages = append(idx.Packages, p)
	}
	return idx, nil
}

type builder struct {
	src     Source
	root    string
	digests map[string]string // tree id → digest
}

// dir is package pkg's directory.
func (b *builder) dir(pkg string) string {
	if r := strings.Trim(b.root, "/"); r != "" && r != "." {
		return r + "/" + pkg
	}
	return pkg
}

func (b *builder) digest(ctx context.Context, commit, dir string) (string, error) {
	ider, ok := b.src.(treeIDer)
	if !ok {
		files, err := b.src.Tree(ctx, commit, dir)
		if err != nil {
			return "", err
		}
		return TreeDigest(files), nil
	}
	id, err := ider.TreeID(ctx, commit, dir)
	if err != nil {
		return "", err
	}
	if id == "" { // no such directory at commit
		return TreeDigest(nil), nil
	}
	if d, ok := b.digests[id]; ok {
		return d, nil
	}
	files, err := ider.TreeByID(ctx, id)
	if err != nil {
		return "", err
	}
	d := TreeDigest(files)
	b.digests[id] = d
	return d, nil
}

// describe fills the package's description, keywords, site and upstream
// from its latest revision's Kptfile. A Kptfile that does not parse leaves
// them empty: the revisions are listed all the same.
func (b *builder) describe(ctx context.Context, p *Package, commit string) error {
	files, err := b.src.Tree(ctx, commit, b.dir(p.Name))
	if err != nil {
		return err
	}
	data, ok := files[kptfile.FileName]
	if !ok {
		return nil
	}
	f, err := kptfile.Parse(data)
	if err != nil {
		return nil
	}
	k := f.Kptfile()
	if k.Info != nil {
		p.Description, p.Keywords, p.Site = k.Info.Description, k.Info.Keywords, k.Info.Site
	}
	if k.Upstream != nil && k.Upstream.Git != nil {
		u := &Upstream{Repo: k.Upstream.Git.Repo, Directory: k.Upstream.Git.Directory, Ref: k.Upstream.Git.Ref}
		if k.UpstreamLock != nil && k.UpstreamLock.Git != nil {
			u.Commit = k.UpstreamLock.Git.Commit
		}
		p.Upstream = u
	}
	return nil
}

func previousRevisions(idx *Index) map[string]Revision {
	out := map[string]Revision{}
	if idx == nil {
		return out
	}
	for _, p := range idx.Packages {
		for _, r := range p.Revisions {
			out[r.Tag] = r
		}
	}
	return out
}

func mergeApprovers(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(append([]string(nil), a...), b...)
	slices.SortFunc(out, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) })
	return slices.CompactFunc(out, strings.EqualFold)
}

// packageDownstreams are the downstreams of package name: those
// opts.Downstreams gives, with those the previous index listed (prev) in
// repositories opts.Unknown names; all of prev when opts.Downstreams is
// nil.
func packageDownstreams(opts Options, prev []Downstream, name string) []Downstream {
	if opts.Downstreams == nil {
		return sortedDownstreams(prev)
	}
	out := opts.Downstreams[name]
	if opts.Unknown == nil {
		return sortedDownstreams(out)
	}
	listed := map[[2]string]bool{}
	for _, d := range out {
		listed[[2]string{strings.ToLower(d.Repository), d.Package}] = true
	}
	for _, d := range prev {
		if opts.Unknown(d.Repository) && !listed[[2]string{strings.ToLower(d.Repository), d.Package}] {
			out = append(out[:len(out):len(out)], d)
		}
	}
	return sortedDownstreams(out)
}

// packageRollout is the rollout of package name: opts.Rollouts's, else
// (unknown) the previous index's, prev.
func packageRollout(opts Options, prev *Rollout, name string) *Rollout {
	r, ok := opts.Rollouts[name]
	switch {
	case opts.Rollouts == nil || ok && r == nil:
		r = prev
	case !ok:
		return nil
	}
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

func sortedDownstreams(ds []Downstream) []Downstream {
	if len(ds) == 0 {
		return nil
	}
	out := append([]Downstream(nil), ds...)
	slices.SortFunc(out, func(a, b Downstream) int {
		if c := strings.Compare(strings.ToLower(a.Repository), strings.ToLower(b.Repository)); c != 0 {
			return c
		}
		return strings.Compare(a.Package, b.Package)
	})
	return out
}

func tagName(t Tag) string { return packages.TagName(t.Package, t.Revision) }
