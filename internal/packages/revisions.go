package packages

import (
	"slices"
	"strconv"
	"strings"
)

const tagsPrefix = "refs/tags/"

// maxRevisionDigits bounds a revision number (at most 999 999 999).
const maxRevisionDigits = 9

// TagName is the tag of revision n of pkg: "<pkg>/v<n>" (as Porch names
// published revisions).
func TagName(pkg string, n int) string { return pkg + "/v" + strconv.Itoa(n) }

// TagRef is the full ref of TagName: "refs/tags/<pkg>/v<n>".
func TagRef(pkg string, n int) string { return tagsPrefix + TagName(pkg, n) }

// ParseTag reads a full tag ref "refs/tags/<pkg>/v<N>". It is ok only for
// a valid package name (ValidateName) and N ≥ 1 written without leading
// zeros; anything else (other refs, "v01", "v0", "1.0") is not a revision.
func ParseTag(ref string) (pkg string, rev int, ok bool) {
	name, found := strings.CutPrefix(ref, tagsPrefix)
	if !found {
		return "", 0, false
	}
	return ParseTagName(name)
}

// ParseTagName is ParseTag for a tag name without "refs/tags/" (as the
// GitHub API lists tags).
func ParseTagName(name string) (pkg string, rev int, ok bool) {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 {
		return "", 0, false
	}
	pkg = name[:i]
	rev, ok = parseRevision(name[i+1:])
	if !ok || ValidateName(pkg) != nil {
		return "", 0, false
	}
	return pkg, rev, true
}

// ParseRevision reads "v<N>" (N ≥ 1, no leading zeros), as in
// "/porch rollback <package> v3".
func ParseRevision(s string) (int, bool) { return parseRevision(s) }

func parseRevision(s string) (int, bool) {
	digits, found := strings.CutPrefix(s, "v")
	if !found || digits == "" || len(digits) > maxRevisionDigits || digits[0] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Revisions groups the revision tags among tags by package, each list
// sorted ascending without duplicates. tags may be full refs
// ("refs/tags/...") or tag names; other refs ("refs/heads/...") and tags that
// are not revisions are ignored.
func Revisions(tags []string) map[string][]int {
	out := map[string][]int{}
	for _, t := range tags {
		var (
			pkg string
			rev int
			ok  bool
		)
		switch {
		case strings.HasPrefix(t, tagsPrefix):
			pkg, rev, ok = ParseTag(t)
		case strings.HasPrefix(t, "refs/"):
			continue
		default:
			pkg, rev, ok = ParseTagName(t)
		}
		if ok {
			out[pkg] = append(out[pkg], rev)
		}
	}
	for pkg, revs := range out {
		slices.Sort(revs)
		out[pkg] = slices.Compact(revs)
	}
	return out
}

// Latest is the highest revision in revs, 0 when there is none.
func Latest(revs []int) int {
	if len(revs) == 0 {
		return 0
	}
	return max(slices.Max(revs), 0)
}

// Next is the revision the next publish creates: Latest + 1 (1 for a
// package never published).
func Next(revs []int) int { return Latest(revs) + 1 }

// Gaps lists the revisions missing between 1 and Latest(revs), ascending:
// revisions must be 1, 2, 3, … with none missing, so a non-empty result is
// a repository someone tampered with (a deleted tag) and is reported.
func Gaps(revs []int) []int {
	latest := Latest(revs)
	if latest == 0 {
		return nil
	}
	have := make(map[int]bool, len(revs))
	for _, r := range revs {
		have[r] = true
	}
	var gaps []int
	for n := 1; n <= latest; n++ {
		if !have[n] {
			gaps = append(gaps, n)
		}
	}
	return gaps
}
