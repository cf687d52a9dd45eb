package builtins

import (
	"fmt"
	"strconv"
	"strings"
)

// The registries the kpt catalog publishes its function images under. kpt
// expands an image without a registry (no "/") under its default prefix:
// gcr.io/kpt-fn/ in kpt 1.0.0-beta releases, ghcr.io/kptdev/krm-functions-catalog/
// in newer ones (runneroptions.ResolveToImage); both name the same releases.
var catalogRegistries = []string{
	"gcr.io/kpt-fn/",
	"ghcr.io/kptdev/krm-functions-catalog/",
}

// A release is one catalog release of a function and the behaviour that
// reproduces it (nil: porchbot does not reproduce that release).
type release struct {
	version string // "v0.4.1"
	new     func() Function
	era     *starlarkEra // starlark's releases: what NewStarlark builds
}

// A Resolved function is a built-in tied to the catalog release an image names.
type Resolved struct {
	Spec Spec
	// Version is the release, e.g. "v0.4.1"; a floating tag ("v0.4") is
	// resolved to the newest patch release of its line.
	Version string
	// New returns a fresh instance reproducing that release.
	New func() Function
}

// ErrNotBuiltin is returned by Resolve for an image that is not one of the
// catalog functions porchbot builds in.
type ErrNotBuiltin struct{ Image string }

func (e *ErrNotBuiltin) Error() string {
	repo, _, _ := splitReference(strings.TrimSpace(e.Image))
	name := ImageName(e.Image)
	what := "has no built-in named " + name
	if _, ok := Lookup(name); ok {
		what = "has no built-in for images of " + strings.TrimSuffix(repo, "/"+name) +
			" (another registry's " + name + " may be anything)"
	}
	return fmt.Sprintf("not supported: porchbot runs functions in process and %s; "+
		"its built-ins are the kpt catalog's images (%s<name>, or <name> alone as kpt expands it): %s",
		what, strings.Join(catalogRegistries, "<name>, "), strings.Join(Names(), ", "))
}

// VersionError is an image of a built-in whose tag or digest porchbot cannot
// tie to a release it reproduces.
type VersionError struct {
	Image    string // as written in the Kptfile
	Name     string // the built-in
	Reason   string // what is wrong with the tag
	Versions []string
}

func (e *VersionError) Error() string {
	pin := e.Name + ":" + e.Versions[len(e.Versions)-1]
	return fmt.Sprintf("%s, and porchbot never runs another version in its place. "+
		"porchbot runs %s %s. Either pin one of them (e.g. image: %s%s), "+
		"or have the server's exec allowlist name a program for this image and use it as an exec function",
		e.Reason, e.Name, strings.Join(e.Versions, ", "), catalogRegistries[0], pin)
}

// Resolve ties a function image (and the Kptfile's optional `tag` version
// constraint, newer kpt's field) to a built-in and the catalog release it
// reproduces, resolving the reference as kpt does: a name without registry
// is under the catalog's registry, no tag means "latest", and a floating tag
// (v0.4) means the newest patch release of that line. An image of another
// registry is *ErrNotBuiltin; a tag, constraint or digest that names no
// release porchbot reproduces is *VersionError.
func Resolve(image, constraint string) (Resolved, error) {
	ref := strings.TrimSpace(image)
	repo, tag, digest := splitReference(ref)
	if !strings.Contains(repo, "/") {
		repo = catalogRegistries[0] + repo
	}
	var spec Spec
	found := false
	for _, s := range All() {
		for _, reg := range catalogRegistries {
			if repo == reg+s.Name {
				spec, found = s, true
			}
		}
	}
	if !found {
		return Resolved{}, &ErrNotBuiltin{Image: image}
	}
	verr := func(reason string) error {
		return &VersionError{Image: image, Name: spec.Name, Reason: reason, Versions: spec.Versions()}
	}
	switch {
	case digest != "":
		return Resolved{}, verr(fmt.Sprintf("the digest %s is not one porchbot can tie to a release of %s", digest, spec.Name))
	case constraint != "":
		return spec.pick(constraint, verr)
	case tag == "":
		return Resolved{}, verr("an image without a tag is " + spec.Name + ":latest, which is whatever the catalog published last")
	case tag == "latest":
		return Resolved{}, verr(`the tag "latest" is whatever the catalog published last`)
	}
	// an image tag is a release (v0.4.1) or the catalog's floating tag of a line (v0.4)
	if _, n, ok := parsePartial(tag); !ok || n < 2 || !strings.HasPrefix(tag, "v") {
		return Resolved{}, verr(fmt.Sprintf("the tag %q is not a release of %s", tag, spec.Name))
	}
	return spec.pick(tag, verr)
}

// pick resolves a tag or version constraint to a release of s.
func (s Spec) pick(want string, verr func(string) error) (Resolved, error) {
	match, ok := parseConstraint(want)
	if !ok {
		return Resolved{}, verr(fmt.Sprintf("the tag %q is not a release of %s", want, s.Name))
	}
	var best *release
	for i := range s.releases {
		r := &s.releases[i]
		v, _ := parseVersion(r.version)
		if match(v) && (best == nil || less(mustVersion(best.version), v)) {
			best = r
		}
	}
	switch {
	case best == nil:
		return Resolved{}, verr(fmt.Sprintf("the tag %q is not a release of %s", want, s.Name))
	case best.new == nil:
		return Resolved{}, verr(fmt.Sprintf("%q is %s %s, a release porchbot does not reproduce", want, s.Name, best.version))
	}
	return Resolved{Spec: s, Version: best.version, New: best.new}, nil
}

// Versions lists the releases s reproduces, oldest first.
func (s Spec) Versions() []string {
	var out []string
	for _, r := range s.releases {
		if r.new != nil {
			out = append(out, r.version)
		}
	}
	return out
}

// VersionRanges is Versions written compactly for tables: consecutive
// patch releases of a line as "v0.3.0–v0.3.4".
func (s Spec) VersionRanges() string { return compact(s.Versions()) }

// RefusedRanges lists, as VersionRanges does, the catalog releases s does
// not reproduce ("" when it reproduces them all).
func (s Spec) RefusedRanges() string {
	var out []string
	for _, r := range s.releases {
		if r.new == nil {
			out = append(out, r.version)
		}
	}
	return compact(out)
}

func compact(vs []string) string {
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && sameLine(vs[i], vs[j+1]) {
			j++
		}
		if i == j {
			parts = append(parts, vs[i])
		} else {
			parts = append(parts, vs[i]+"–"+vs[j])
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func sameLine(a, b string) bool {
	va, vb := mustVersion(a), mustVersion(b)
	return va[0] == vb[0] && va[1] == vb[1]
}

// splitReference splits an image reference into repository, tag and digest.
func splitReference(ref string) (repo, tag, digest string) {
	if i := strings.Index(ref, "@"); i >= 0 {
		ref, digest = ref[:i], ref[i+1:]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref, tag = ref[:i], ref[i+1:]
	}
	return strings.ToLower(ref), tag, digest
}

type version [3]int

func parseVersion(s string) (version, bool) {
	v, n, ok := parsePartial(s)
	return v, ok && n == 3
}

func mustVersion(s string) version {
	v, _ := parseVersion(s)
	return v
}

// parsePartial parses "v1", "v1.2" or "v1.2.3" (the "v" optional) and
// reports how many parts it had.
func parsePartial(s string) (version, int, bool) {
	var v version
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 3 {
		return v, 0, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return v, 0, false
		}
		v[i] = n
	}
	return v, len(parts), true
}

func less(a, b version) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// parseConstraint turns a tag or a semver constraint into a predicate over
// releases: "v0.4.1" is that release, a floating tag "v0.4" (or "v0") the
// releases of that line, and a constraint ("~0.4", "^0.4.1", ">=0.3, <0.4",
// "0.4.x") as kpt's `tag` field reads it.
func parseConstraint(c string) (func(version) bool, bool) {
	var preds []func(version) bool
	for _, term := range strings.FieldsFunc(c, func(r rune) bool { return r == ',' }) {
		p, ok := parseTerm(strings.TrimSpace(term))
		if !ok {
			return nil, false
		}
		preds = append(preds, p)
	}
	if len(preds) == 0 {
		return nil, false
	}
	return func(v version) bool {
		for _, p := range preds {
			if !p(v) {
				return false
			}
		}
		return true
	}, true
}

func parseTerm(t string) (func(version) bool, bool) {
	op := ""
	for _, o := range []string{">=", "<=", "!=", ">", "<", "=", "~", "^"} {
		if strings.HasPrefix(t, o) {
			op, t = o, strings.TrimSpace(t[len(o):])
			break
		}
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, ".x"), ".*")
	base, n, ok := parsePartial(t)
	if !ok {
		return nil, false
	}
	prefix := func(v version) bool { // v is in the line base names
		for i := 0; i < n; i++ {
			if v[i] != base[i] {
				return false
			}
		}
		return true
	}
	switch op {
	case "", "=":
		return prefix, true
	case "!=":
		return func(v version) bool { return !prefix(v) }, true
	case ">=":
		return func(v version) bool { return !less(v, base) }, true
	case ">":
		return func(v version) bool { return less(base, v) && !prefix(v) }, true
	case "<":
		return func(v version) bool { return less(v, base) }, true
	case "<=":
		return func(v version) bool { return !less(base, v) || prefix(v) }, true
	case "~": // same minor (same major with only a major given), at least base
		return func(v version) bool {
			return !less(v, base) && v[0] == base[0] && (n == 1 || v[1] == base[1])
		}, true
	case "^": // same leftmost non-zero part, at least base
		return func(v version) bool {
			if less(v, base) || v[0] != base[0] {
				return false
			}
			if base[0] == 0 && n > 1 {
				return v[1] == base[1] && (base[1] != 0 || n < 3 || v[2] == base[2])
			}
			return true
		}, true
	}
	return nil, false
}
