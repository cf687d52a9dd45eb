package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/porchbot/porchbot/internal/render/builtins"
)

// KptRelease names the kpt release whose `kpt fn render` a render
// reproduces (config render.kpt, `porchbot render --kpt`).
type KptRelease string

// The kpt releases porchbot reproduces.
const (
	// KptBeta56 renders as kpt v1.0.0-beta.56: the Kptfile is left as
	// the functions leave it.
	KptBeta56 KptRelease = "v1.0.0-beta.56"
	// KptBeta67 renders as kpt v1.0.0-beta.67: the root Kptfile records
	// the render (status.conditions Rendered, status.renderStatus), on
	// success and on failure.
	KptBeta67 KptRelease = "v1.0.0-beta.67"
)

// DefaultKpt is the release a render reproduces when none is named: the
// newest porchbot reproduces (docs/functions.md, "kpt releases").
const DefaultKpt = KptBeta67

// KptReleases are the releases porchbot reproduces, oldest first.
func KptReleases() []KptRelease { return []KptRelease{KptBeta56, KptBeta67} }

// ParseKptRelease reads a release as written ("v1.0.0-beta.67", or
// without its "v"); "" is DefaultKpt.
func ParseKptRelease(s string) (KptRelease, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultKpt, nil
	}
	if !strings.HasPrefix(s, "v") {
		s = "v" + s
	}
	if r := KptRelease(s); slices.Contains(KptReleases(), r) {
		return r, nil
	}
	names := make([]string, 0, len(KptReleases()))
	for _, r := range KptReleases() {
		names = append(names, string(r))
	}
	return "", fmt.Errorf("kpt %s is not a release porchbot reproduces; it reproduces %s", s, strings.Join(names, ", "))
}

// WritesRenderStatus reports whether a render of this release records
// itself in the root Kptfile.
func (r KptRelease) WritesRenderStatus() bool { return r == KptBeta67 }

// ReadsRenderAnnotations reports whether the release honours the root
// Kptfile's kpt.dev/save-on-render-failure and kpt.dev/bfs-rendering
// (kpt added both after v1.0.0-beta.56).
func (r KptRelease) ReadsRenderAnnotations() bool { return r == KptBeta67 }

// imagePrefix is where the release looks for an image named without a
// registry (kpt's runneroptions.ResolveToImage).
func (r KptRelease) imagePrefix() string {
	if r == KptBeta56 {
		return "gcr.io/kpt-fn/"
	}
	return "ghcr.io/kptdev/krm-functions-catalog/"
}

// withTag is image with its tag (and digest) replaced by tag.
func withTag(image, tag string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image + ":" + tag
}

// configNotInPackage is why the release refuses a configPath naming a file
// that is not one of the package's resources (a subpackage's, say): the
// step is "mutator" or "validator".
func (r KptRelease) configNotInPackage(step string, fn Function) string {
	if r == KptBeta56 {
		return "functionConfig must exist in the current package"
	}
	name := fn.Name
	if name == "" {
		name = builtins.ImageName(fn.Image)
	}
	return fmt.Sprintf("functionConfig resource for %s %q is missing from path %q, this also occurs if %q is part of a subpackage",
		step, name, fn.ConfigPath, fn.ConfigPath)
}

// orDefault is r, or DefaultKpt for none.
func (r KptRelease) orDefault() KptRelease {
	if r == "" {
		return DefaultKpt
	}
	return r
}
