package variants

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// Label marks porchbot's pull requests of variant work in a target
// repository (beside porch/proposed or porch/deletion-proposed).
const Label = "porch/variant"

// Disown is what deletionPolicy orphan proposes: the package as it is,
// without the ownership annotations (OwnerAnnotation, SpecAnnotation).
// The variant's labels, annotations, pipeline functions and injected
// content stay: the package is the target repository's own from then on.
func Disown(files map[string][]byte) (map[string][]byte, error) {
	return editKptfile(files, func(kf *kptfile.File) error {
		return kf.Edit(func(doc *yaml.RNode) error {
			for _, k := range []string{OwnerAnnotation, SpecAnnotation} {
				if err := doc.PipeE(yaml.ClearAnnotation(k)); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Owned reads the ownership a Kptfile carries: its OwnerAnnotation parsed
// (nil when absent or unreadable) and its SpecAnnotation.
func Owned(k *kptfile.Kptfile) (*Ownership, string) {
	if k == nil {
		return nil, ""
	}
	a := k.Metadata.Annotations
	v, ok := a[OwnerAnnotation]
	if !ok {
		return nil, a[SpecAnnotation]
	}
	o, err := ParseOwnership(v)
	if err != nil {
		return nil, a[SpecAnnotation]
	}
	return &o, a[SpecAnnotation]
}
