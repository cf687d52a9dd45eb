package variants

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/porchbot/porchbot/internal/config"
)

// The annotations a variant writes on the downstream Kptfile's metadata.
const (
	// OwnerAnnotation names the variants entry that made the package.
	OwnerAnnotation = "porchbot.dev/variant"
	// SpecAnnotation is the digest of the mutations the package carries
	// (SpecDigest); a different digest means the entry changed since.
	SpecAnnotation = "porchbot.dev/variant-spec"
)

// Ownership identifies a variants entry as the owner of a downstream
// package: the repository holding the entry, the entry's upstream package
// and its downstream template (those three name the entry; changing the
// template makes a new entry, as renaming a PackageVariant does in Porch),
// and the deletion policy the package was made with, which still applies
// when the entry itself is gone.
type Ownership struct {
	Upstream   string // owner/name of the upstream repository
	Package    string // upstream package
	Downstream string // the downstream package template ("" = the upstream package's name)
	OnRemove   string // config.DeleteOnRemove or config.OrphanOnRemove
}

// OwnershipOf is the ownership a variant entry of repository upstream gives.
func OwnershipOf(upstream string, v config.Variant) Ownership {
	return Ownership{Upstream: upstream, Package: v.Upstream.Package, Downstream: v.Downstream.Package, OnRemove: v.DeletionPolicy}
}

// SameEntry reports whether o and p name the same variants entry (the
// deletion policy aside). Repository names compare as GitHub compares
// them, without regard to case.
func (o Ownership) SameEntry(p Ownership) bool {
	return strings.EqualFold(o.Upstream, p.Upstream) && o.Package == p.Package && o.Downstream == p.Downstream
}

// Annotation is the value of OwnerAnnotation: readable, and parsed back by
// ParseOwnership, e.g.
//
//	upstream=acme/catalog; package=base/upf; downstream=%7B%7B%20.Repository.Name%20%7D%7D/upf; onRemove=delete
func (o Ownership) Annotation() string {
	return fmt.Sprintf("upstream=%s; package=%s; downstream=%s; onRemove=%s",
		url.PathEscape(o.Upstream), url.PathEscape(o.Package), url.PathEscape(o.Downstream), url.PathEscape(o.OnRemove))
}

// ParseOwnership reads an OwnerAnnotation value.
func ParseOwnership(s string) (Ownership, error) {
	var o Ownership
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return Ownership{}, fmt.Errorf("%s: %q is not key=value", OwnerAnnotation, part)
		}
		val, err := url.PathUnescape(v)
		if err != nil {
			return Ownership{}, fmt.Errorf("%s: %s: %w", OwnerAnnotation, k, err)
		}
		if seen[k] {
			return Ownership{}, fmt.Errorf("%s: %s given twice", OwnerAnnotation, k)
		}
		seen[k] = true
		switch k {
		case "upstream":
			o.Upstream = val
		case "package":
			o.Package = val
		case "downstream":
			o.Downstream = val
		case "onRemove":
			o.OnRemove = val
		default:
			return Ownership{}, fmt.Errorf("%s: unknown key %q", OwnerAnnotation, k)
		}
	}
	if o.Upstream == "" || o.Package == "" {
		return Ownership{}, fmt.Errorf("%s: upstream and package are required, got %q", OwnerAnnotation, s)
	}
	switch o.OnRemove {
	case "":
		o.OnRemove = config.DeleteOnRemove
	case config.DeleteOnRemove, config.OrphanOnRemove:
	default:
		return Ownership{}, fmt.Errorf("%s: onRemove %q is neither %s nor %s", OwnerAnnotation, o.OnRemove, config.DeleteOnRemove, config.OrphanOnRemove)
	}
	return o, nil
}
