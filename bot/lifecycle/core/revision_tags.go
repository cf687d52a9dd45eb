package core

import (
	"context"
	"errors"
	"fmt"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/revrecord"
)

// Revision tags <package>/v<N> as read from a repository's git cache.

// RevisionTags are the revision tags of a repository's cache, by package:
// every <pkg>/v<N> tag (numbering and the landings they hold count them
// all), each judged by revrecord.IsRevision. Published is the view of the
// tags porchbot published: the only one anything is derived from.
type RevisionTags struct {
	byPkg map[string]map[int]plumbing.Hash
	// at is the highest revision of a package on a commit.
	at map[string]map[plumbing.Hash]int
	// records are the verified records, by tag name; unverified the
	// tags that are not porchbot's revisions, by tag name.
	Records    map[string]revrecord.Record
	unverified map[string]UnverifiedTag
}

// UnverifiedTag is a <pkg>/v<N> tag that is not a revision porchbot
// published: pushed by hand (lightweight or annotated), made before
// revisions were signed, or with a record that does not verify here.
type UnverifiedTag struct {
	revrecord.Tag
	// Why it is not porchbot's.
	Why error
}

// Name is the tag's name.
func (u UnverifiedTag) Name() string { return packages.TagName(u.Package, u.Revision) }

// Revisions lists pkg's revisions, ascending.
func (t RevisionTags) Revisions(pkg string) []int {
	revs := make([]int, 0, len(t.byPkg[pkg]))
	for n := range t.byPkg[pkg] {
		revs = append(revs, n)
	}
	sort.Ints(revs)
	return revs
}

// Latest is pkg's highest revision and its commit (0 and ZeroHash: none).
func (t RevisionTags) Latest(pkg string) (int, plumbing.Hash) {
	n := packages.Latest(t.Revisions(pkg))
	return n, t.byPkg[pkg][n]
}

// Commit is the commit revision n of pkg is tagged on.
func (t RevisionTags) Commit(pkg string, n int) (plumbing.Hash, bool) {
	h, ok := t.byPkg[pkg][n]
	return h, ok
}

// At is the highest revision of pkg tagged on commit (0: none).
func (t RevisionTags) At(pkg string, commit plumbing.Hash) int { return t.at[pkg][commit] }

// Packages lists the packages with at least one revision, sorted.
func (t RevisionTags) Packages() []string {
	out := make([]string, 0, len(t.byPkg))
	for p := range t.byPkg {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (t *RevisionTags) add(pkg string, n int, commit plumbing.Hash) {
	if t.byPkg == nil {
		t.byPkg, t.at = map[string]map[int]plumbing.Hash{}, map[string]map[plumbing.Hash]int{}
	}
	if t.Records == nil {
		t.Records, t.unverified = map[string]revrecord.Record{}, map[string]UnverifiedTag{}
	}
	if t.byPkg[pkg] == nil {
		t.byPkg[pkg], t.at[pkg] = map[int]plumbing.Hash{}, map[plumbing.Hash]int{}
	}
	t.byPkg[pkg][n] = commit
	t.at[pkg][commit] = max(t.at[pkg][commit], n)
}

// AddPublished records a revision porchbot made (verified, or just created).
func (t *RevisionTags) AddPublished(rec revrecord.Record, commit plumbing.Hash) {
	t.add(rec.Package, rec.Revision, commit)
	name := packages.TagName(rec.Package, rec.Revision)
	t.Records[name] = rec
	delete(t.unverified, name)
}

// Record is the verified record of revision n of pkg (ok false: no such
// revision of porchbot's).
func (t RevisionTags) Record(pkg string, n int) (revrecord.Record, bool) {
	r, ok := t.Records[packages.TagName(pkg, n)]
	return r, ok
}

// ByPackage are the revisions of every package.
func (t RevisionTags) ByPackage() map[string][]int {
	out := map[string][]int{}
	for _, pkg := range t.Packages() {
		out[pkg] = t.Revisions(pkg)
	}
	return out
}

// Published is the view of the tags that are porchbot's revisions.
func (t RevisionTags) Published() RevisionTags {
	var out RevisionTags
	for name, rec := range t.Records {
		if h, ok := t.Commit(rec.Package, rec.Revision); ok && packages.TagName(rec.Package, rec.Revision) == name {
			out.AddPublished(rec, h)
		}
	}
	return out
}

// Unverified lists the tags that are not porchbot's revisions, by package
// and revision.
func (t RevisionTags) Unverified() []UnverifiedTag {
	out := make([]UnverifiedTag, 0, len(t.unverified))
	for _, u := range t.unverified {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Revision < out[j].Revision
	})
	return out
}

// ReadRevisionTags reads every <pkg>/v<N> tag of the session's cache,
// peeled to its commit, each judged by revrecord.IsRevision under the
// session's record key.
func ReadRevisionTags(ctx context.Context, s *Session) (RevisionTags, error) {
	var tags RevisionTags
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		var err error
		tags, err = s.ReadLandingTags(repo.Storer)
		return err
	})
	if err != nil {
		return RevisionTags{}, fmt.Errorf("read revision tags of %s: %w", s.Git.Name(), err)
	}
	return tags, nil
}

func (s *Session) ReadLandingTags(st storer.Storer) (RevisionTags, error) {
	var tags RevisionTags
	iter, err := st.IterReferences()
	if err != nil {
		return tags, err
	}
	key, repo := s.SigningKey(), s.Repo.FullName()
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		t, rec, ok, why := revrecord.IsRevision(st, key, repo, ref)
		if !ok {
			return nil
		}
		if why == nil {
			tags.AddPublished(rec, t.Commit)
			return nil
		}
		tags.add(t.Package, t.Revision, t.Commit)
		tags.unverified[packages.TagName(t.Package, t.Revision)] = UnverifiedTag{Tag: t, Why: why}
		return nil
	})
	return tags, err
}

// ErrNotARevision: a tag exists but porchbot did not publish it.
var ErrNotARevision = errors.New("not a revision porchbot published")

// notRevisionError is errNotARevision for one tag, with why.
type notRevisionError struct {
	tag string
	why error
}

func (e *notRevisionError) Error() string {
	return e.tag + " is " + ErrNotARevision.Error() + ": " + e.why.Error()
}
func (e *notRevisionError) Unwrap() []error { return []error{ErrNotARevision, e.why} }

// NotRevisionRequest is the answer to a request for revision n of pkg
// whose tag is not porchbot's (err from revisionCommit).
func (s *Session) NotRevisionRequest(pkg string, n int, err error) error {
	why := err.Error()
	var e *notRevisionError
	if errors.As(err, &e) {
		why = e.why.Error()
	}
	return RequestErrorf("%s's tag %s is not a revision porchbot published (%s): nothing is derived from it "+
		"until an approver there adopts it with %s.", mdquote.Code(s.Repo.FullName()), mdquote.Code(packages.TagName(pkg, n)), why,
		mdquote.Code("/porch publish "+pkg))
}

// RevisionCommit is the commit of revision n of pkg when its tag is a
// revision porchbot published (revrecord.IsRevision); a tag that is not
// wraps errNotARevision with why, a missing one gitstore.ErrNotFound.
func (s *Session) RevisionCommit(ctx context.Context, pkg string, n int) (plumbing.Hash, error) {
	var commit plumbing.Hash
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		ref, err := repo.Storer.Reference(plumbing.ReferenceName(packages.TagRef(pkg, n)))
		if err != nil {
			return fmt.Errorf("%s: %w", packages.TagName(pkg, n), gitstore.ErrNotFound)
		}
		t, _, ok, why := revrecord.IsRevision(repo.Storer, s.SigningKey(), s.Repo.FullName(), ref)
		switch {
		case !ok:
			return fmt.Errorf("%s: %w", packages.TagName(pkg, n), gitstore.ErrNotFound)
		case why != nil:
			return &notRevisionError{tag: packages.TagName(pkg, n), why: why}
		}
		commit = t.Commit
		return nil
	})
	return commit, err
}
