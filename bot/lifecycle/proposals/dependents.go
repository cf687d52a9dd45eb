package proposals

// Who depends on what (/porch dependents <package>, and the list a
// deletion proposal carries): the downstream packages the registry knows
// to track a package of the session's repository, the revision each is
// at, and whether it is behind the latest. Everything is read from the
// registry and the git cache: no REST call. A text of this repository
// names only the downstream repositories its readers may read
// (downstreams.Downstream.NameableIn, the package index's rule) and counts
// the others.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// maxDependentRows bounds the table (a comment or body holds 65,536
// characters).
const maxDependentRows = 300

// DependentsReport is who depends on one package.
type DependentsReport struct {
	Repository, Package string
	// Latest is the package's latest published revision (0: none).
	Latest int
	core.Dependents
	// tracked is the revision each of Named is at (0: not a revision).
	tracked []int
}

// Dependents reports the downstream packages of pkg: a package on the
// deployment branch, or one deleted from it that has published
// revisions (its downstreams may still track them). Another name is a
// *core.RequestError naming the nearest packages.
func Dependents(ctx context.Context, s *core.Session, pkg string) (*DependentsReport, error) {
	if err := packages.ValidateName(pkg); err != nil {
		return nil, &core.RequestError{Msg: mdquote.Code(pkg) + " is not a package name: " + mdquote.Quiet(err.Error())}
	}
	names, err := PackageNames(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("dependents of %s: %w", pkg, err)
	}
	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("dependents of %s: %w", pkg, err)
	}
	published := tags.Published()
	if !slices.Contains(names, pkg) && len(published.Revisions(pkg)) == 0 {
		return nil, unknownPackage(s, pkg, append(names, published.Packages()...))
	}
	return dependentsReport(ctx, s, pkg, published), nil
}

// dependentsReport is the report of pkg given its published revisions.
func dependentsReport(ctx context.Context, s *core.Session, pkg string, published core.RevisionTags) *DependentsReport {
	r := &DependentsReport{Repository: s.Repo.FullName(), Package: pkg,
		Dependents: s.DependentsOf(ctx, core.PackageDir(s.Config.Packages.Root, pkg))}
	r.Latest, _ = published.Latest(pkg)
	r.tracked = make([]int, len(r.Named))
	for i, d := range r.Named {
		r.tracked[i] = trackedRevision(d, pkg, published)
	}
	return r
}

// trackedRevision is the revision of pkg d is at: the tag its Kptfile's
// ref names, else the revision on the commit its upstreamLock pins.
func trackedRevision(d downstreams.Downstream, pkg string, published core.RevisionTags) int {
	if n := d.TrackedRevision(pkg); n > 0 {
		return n
	}
	if _, commit := d.TrackedRef(); len(commit) == 40 && plumbing.IsHash(commit) {
		return published.At(pkg, plumbing.NewHash(commit))
	}
	return 0
}

// Behind counts the named downstreams at a revision older than the latest.
func (r *DependentsReport) Behind() int {
	n := 0
	for _, t := range r.tracked {
		if t > 0 && t < r.Latest {
			n++
		}
	}
	return n
}

// Markdown is the report for a reply or a pull request body: a sentence,
// the table of the named downstream packages, how many are in
// repositories this repository's readers cannot see, and whether the
// registry may not know them all yet.
func (r *DependentsReport) Markdown() string {
	var b strings.Builder
	latest := "no published revision"
	if r.Latest > 0 {
		latest = "latest revision " + mdquote.Code(packages.TagName(r.Package, r.Latest))
	}
	switch {
	case !r.Known:
		fmt.Fprintf(&b, "This server keeps no downstream registry: it cannot tell which packages track %s.\n", mdquote.Code(r.Package))
		return b.String()
	case len(r.All) == 0:
		fmt.Fprintf(&b, "No downstream package is known to track %s of %s (%s).\n", mdquote.Code(r.Package), mdquote.Code(r.Repository), latest)
	default:
		fmt.Fprintf(&b, "**%s** %s track %s of %s (%s)", words.Count(len(r.All), "downstream package", "downstream packages"),
			words.Plural(len(r.All), "is known to", "are known to"), mdquote.Code(r.Package), mdquote.Code(r.Repository), latest)
		if behind := r.Behind(); behind > 0 {
			fmt.Fprintf(&b, "; %d of those shown %s behind", behind, words.Plural(behind, "is", "are"))
		}
		b.WriteString(".\n")
	}
	if len(r.Named) > 0 {
		b.WriteString("\n| repository | package | at revision | |\n|---|---|---|---|\n")
		for i, d := range r.Named {
			if i == maxDependentRows {
				fmt.Fprintf(&b, "| … and %d more | | | |\n", len(r.Named)-maxDependentRows)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdquote.CodeCell(d.Repo), mdquote.CodeCell(d.Package),
				r.atCell(d, r.tracked[i]), r.stateCell(r.tracked[i]))
		}
	}
	if r.Hidden > 0 {
		lead := fmt.Sprintf("All %d are", r.Hidden)
		if len(r.Named) > 0 {
			lead = fmt.Sprintf("And %d", r.Hidden)
		}
		b.WriteString("\n" + lead + " in repositories this repository's readers cannot see (private or internal): they are not named here.\n")
	}
	if !r.Complete {
		b.WriteString("\nporchbot has not yet seen every repository it is installed on (its first resync pass since it started has not finished): " +
			"this list may be partial.\n")
	}
	return b.String()
}

// atCell is the revision a downstream is at, or what its Kptfile names.
func (r *DependentsReport) atCell(d downstreams.Downstream, tracked int) string {
	if tracked > 0 {
		return mdquote.CodeCell(fmt.Sprintf("v%d", tracked))
	}
	ref, commit := d.TrackedRef()
	switch {
	case ref != "" && commit != "":
		return mdquote.CodeCell(ref) + " at " + mdquote.CodeCell(words.ShortSHA(commit))
	case ref != "":
		return mdquote.CodeCell(ref)
	case commit != "":
		return mdquote.CodeCell(words.ShortSHA(commit))
	}
	return "—"
}

// stateCell says whether a revision is the latest.
func (r *DependentsReport) stateCell(tracked int) string {
	switch {
	case tracked == 0:
		return "not a published revision"
	case tracked < r.Latest:
		return fmt.Sprintf("behind (%d %s)", r.Latest-tracked, words.Plural(r.Latest-tracked, "revision", "revisions"))
	}
	return "latest"
}
