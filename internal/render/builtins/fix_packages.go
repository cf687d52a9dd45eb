package builtins

import (
	"encoding/json"
	"path/filepath"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fixPackages are fix's packages: the directories of the items' paths
// named Kptfile, each with the paths of its items' files (its subpackages'
// aside), by the items' config.kubernetes.io/path annotations as written.
type fixPackages struct {
	filesOf map[string]map[string]bool // package directory -> its files
	pkgOf   map[string]string          // file -> package directory
}

// groupFixPackages groups the items' files into packages: a file belongs
// to the nearest directory above it with a Kptfile, if that is the package.
func groupFixPackages(items []*yaml.RNode) (fixPackages, error) {
	p := fixPackages{filesOf: map[string]map[string]bool{}, pkgOf: map[string]string{}}
	files, kptfiles := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		meta, err := it.GetMeta()
		if err != nil {
			return p, err
		}
		path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release's kyaml named this one
		if filepath.Base(path) == "Kptfile" {
			kptfiles[path] = true
		} else {
			files[path] = true
		}
	}
	for kf := range kptfiles {
		pkg := filepath.Dir(kf)
		p.filesOf[pkg] = map[string]bool{}
		for f := range files {
			if nearestPackage(f, kptfiles) == pkg {
				p.filesOf[pkg][f] = true
				p.pkgOf[f] = pkg
			}
		}
	}
	return p, nil
}

// nearestPackage is the nearest directory above file with a Kptfile among
// kptfiles, "" if none (the root reached: "." or "").
func nearestPackage(file string, kptfiles map[string]bool) string {
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if kptfiles[filepath.Join(dir, "Kptfile")] {
			return dir
		}
		if dir == "" || dir == "." {
			return ""
		}
	}
}

// packageSchemas reads the openAPI section of every item of kind Kptfile
// (nil without one), by its directory; of two in one directory, the later.
func (r *fixRun) packageSchemas() (map[string]*spec.Schema, error) {
	out := map[string]*spec.Schema{}
	for _, it := range r.items {
		if it.GetKind() != "Kptfile" {
			continue
		}
		s, err := openAPISchema(it)
		if err != nil {
			return nil, err
		}
		out[filepath.Dir(fixPath(it))] = s
	}
	return out, nil
}

// openAPISchema is a Kptfile's openAPI section as an OpenAPI schema, nil
// when it has none (or an empty one).
func openAPISchema(kf *yaml.RNode) (*spec.Schema, error) {
	f := kf.Field("openAPI")
	if f.IsNilOrEmpty() {
		return nil, nil
	}
	// written out and read back as the release reads it (a decoding
	// error's line is the section's own)
	text, err := f.Value.String()
	if err != nil {
		return nil, err
	}
	var v interface{}
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s spec.Schema
	if err := s.UnmarshalJSON(b); err != nil {
		// the release decodes it with encoding/json into go-openapi's
		// types of 2021, whose messages porchbot's decoder does not share
		return nil, fixRefusal("the Kptfile's openAPI section is no OpenAPI schema (%v); the release fails "+
			"too, with its own decoder's message", err)
	}
	return &s, nil
}

// fixPath is an item's config.kubernetes.io/path, which the release's
// kyaml reads (kpt's internal path aside).
func fixPath(rn *yaml.RNode) string {
	return getAnnotation(rn, kioutil.LegacyPathAnnotation) //nolint:staticcheck // the release's kyaml named this one
}
