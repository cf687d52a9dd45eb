package builtins

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// The registries the kpt catalog publishes its function images under. kpt
// expands an image without a registry (no "/") under its default prefix:
// gcr.io/kpt-fn/ in kpt 1.0.0-beta releases, ghcr.io/kptdev/krm-functions-catalog/
// in newer ones (runneroptions.ResolveToImage); both name the same releases.
var catalogRegistries = []string{
	"gcr.io/kpt-fn/",
	"ghcr.io/kptdev/krm-functions-catalog/",
}

// latestOnly is the version of a function porchbot runs only as its
// latest image: it reproduces what the catalog published last as a
// recorded kpt run shows it, and ties no release tag to it.
const latestOnly = "latest"

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
	// Note says how a reference that names no one release (latest, no
	// tag) was resolved, and where kpt may pull another release ("" for a
	// release or a line named).
	Note string
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
	if why := notBuiltInWhy(name); why != "" && isCatalogImage(repo, name) {
		what += " (" + why + ")"
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
		return spec.byConstraint(constraint, verr)
	}
	return spec.byTag(tag, verr)
}

// byTag resolves an image's tag: a release (v0.4.1), the catalog's
// floating tag of a line (v0.4), or latest (no tag is latest, as to kpt
// and the container runtime): the newest release porchbot knows.
func (s Spec) byTag(tag string, verr func(string) error) (Resolved, error) {
	if tag == "" || tag == "latest" {
		return s.latest(verr)
	}
	if s.latestOnly() {
		return Resolved{}, verr(fmt.Sprintf("the tag %q is a release porchbot does not reproduce: "+
			"it reproduces %s only as the catalog's latest image", tag, s.Name))
	}
	if _, n, ok := parsePartial(tag); !ok || n < 2 || !strings.HasPrefix(tag, "v") {
		return Resolved{}, verr(fmt.Sprintf("the tag %q is not a release of %s", tag, s.Name))
	}
	return s.pick(tag, verr)
}

// latest resolves latest: kpt pulls whatever the catalog published last;
// porchbot runs the newest release in its table of the catalog's releases
// (its tag lister) and says so. When it does not reproduce that one, it
// runs the newest it does and says that kpt would run the other.
func (s Spec) latest(verr func(string) error) (Resolved, error) {
	var newest, runs *release
	for i := range s.releases {
		r := &s.releases[i]
		if newest == nil || less(mustVersion(newest.version), mustVersion(r.version)) {
			newest = r
		}
		if r.new != nil && (runs == nil || less(mustVersion(runs.version), mustVersion(r.version))) {
			runs = r
		}
	}
	if runs == nil {
		return Resolved{}, verr(fmt.Sprintf("porchbot reproduces no release of %s", s.Name))
	}
	note := fmt.Sprintf("latest is %s, the newest release of %s porchbot knows; kpt pulls whatever the catalog published last",
		runs.version, s.Name)
	switch {
	case runs.version == latestOnly:
		note = fmt.Sprintf("latest ran as porchbot reproduces %s's latest image (as kpt v1.0.0-beta.67's tests recorded it); "+
			"kpt pulls whatever the catalog published last", s.Name)
	case newest != runs:
		note = fmt.Sprintf("latest ran as %s, the newest release of %s porchbot reproduces; kpt would pull %s or newer, "+
			"which porchbot does not reproduce: pin %s to render as kpt does", runs.version, s.Name, newest.version, runs.version)
	}
	return Resolved{Spec: s, Version: runs.version, New: runs.new, Note: note}, nil
}

// byConstraint resolves the Kptfile's `tag` field as kpt does
// (Masterminds semver, kpt's tag resolution): an exact version is the
// image's tag as written; a constraint ("~0.4", "0.4.1 - 0.4.3",
// "^0.4 || ^0.5") is the newest release of porchbot's table of the
// catalog's releases (its tag lister) that meets it; anything else is a
// literal tag, which must be a valid image tag.
func (s Spec) byConstraint(constraint string, verr func(string) error) (Resolved, error) {
	if _, err := semver.NewVersion(constraint); err == nil {
		return s.byTag(constraint, verr)
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		if !imageTag.MatchString(constraint) {
			return Resolved{}, verr(fmt.Sprintf("`tag` %q is neither a version constraint nor a valid image tag "+
				"(letters, digits, underscores, periods and dashes, 128 at most, not starting with a period or dash)", constraint))
		}
		return s.byTag(constraint, verr)
	}
	var best *release
	var bestV *semver.Version
	for i := range s.releases {
		r := &s.releases[i]
		v, err := semver.NewVersion(r.version)
		if err == nil && c.Check(v) && (best == nil || v.GreaterThan(bestV)) {
			best, bestV = r, v
		}
	}
	switch {
	case best == nil:
		return Resolved{}, verr(fmt.Sprintf("no release of %s meets the version constraint %q", s.Name, constraint))
	case best.new == nil:
		return Resolved{}, verr(fmt.Sprintf("%q is %s %s, a release porchbot does not reproduce", constraint, s.Name, best.version))
	}
	res := Resolved{Spec: s, Version: best.version, New: best.new}
	patch, minor := bestV.IncPatch(), bestV.IncMinor()
	if s.newest(best) && (c.Check(&patch) || c.Check(&minor)) {
		// the constraint admits releases newer than porchbot knows
		res.Note = fmt.Sprintf("%q is %s, the newest release of %s porchbot knows that meets it; "+
			"kpt pulls the newest the catalog has published that meets it", constraint, best.version, s.Name)
	}
	return res, nil
}

// IsImageTag reports whether s is a valid OCI image tag.
func IsImageTag(s string) bool { return imageTag.MatchString(s) }

// imageTag is an OCI image tag (distribution's reference.TagRegexp,
// anchored).
var imageTag = regexp.MustCompile(`^[\w][\w.-]{0,127}$`)

// pick resolves an image tag, a release (v0.4.1) or a line (v0.4), to
// the newest release of s it names.
func (s Spec) pick(want string, verr func(string) error) (Resolved, error) {
	base, n, _ := parsePartial(want)
	match := func(v version) bool { return slices.Equal(v[:n], base[:n]) }
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
	res := Resolved{Spec: s, Version: best.version, New: best.new}
	if n < 3 && s.newest(best) {
		// a floating tag of the newest line: the catalog moves it to each
		// release of the line (a line a newer one followed is closed)
		res.Note = fmt.Sprintf("%s is %s, the newest release of the %s line of %s porchbot knows; "+
			"kpt pulls the release the catalog's %s tag names now", want, best.version, want, s.Name, want)
	}
	return res, nil
}

// latestOnly reports whether porchbot runs s only as its latest image.
func (s Spec) latestOnly() bool {
	return len(s.releases) == 1 && s.releases[0].version == latestOnly
}

// newest reports whether r is the newest release in s's table: kpt may
// find a newer one only beyond it.
func (s Spec) newest(r *release) bool {
	v := mustVersion(r.version)
	for i := range s.releases {
		if less(v, mustVersion(s.releases[i].version)) {
			return false
		}
	}
	return true
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
	if s.latestOnly() {
		return "every release tag"
	}
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
