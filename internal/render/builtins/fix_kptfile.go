package builtins

import (
	"fmt"
	"path/filepath"
	"strings"

	fixv1 "github.com/porchbot/porchbot/internal/render/builtins/sdkapi/fixkptfile/v1"
	"github.com/porchbot/porchbot/internal/render/builtins/sdkapi/fixkptfile/v1alpha1"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fixSettersImage is the apply-setters mutator a migrated package gets.
const fixSettersImage = "gcr.io/kpt-fn/apply-setters:v0.1"

// migrateKptfile migrates one item of kind Kptfile, whose package's
// function configs are fns: by its apiVersion, a v1alpha2 one (containing
// "v1alpha2"), a v1 one (left as it is), any other a v1alpha1 one.
func (r *fixRun) migrateKptfile(kf *yaml.RNode, meta yaml.ResourceMeta, fns []fixv1.Function) (*yaml.RNode, error) {
	path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release's kyaml named this one
	settersPath := filepath.Join(filepath.Dir(path), r.release.settersFile())
	switch {
	case strings.Contains(meta.APIVersion, "v1alpha2"):
		return r.migrateV1alpha2(kf, meta, settersPath)
	case meta.APIVersion == fixv1.APIVersion:
		r.report(path, "This package is already fixed as it is on latest apiVersion "+fixv1.APIVersion)
		return kf, nil
	}
	return r.migrateV1alpha1(kf, meta, fns, settersPath)
}

// migrateV1alpha2 gives a v1alpha2 Kptfile apiVersion v1, and an
// apply-setters:v0.1 mutator with a configMap a setters file instead.
func (r *fixRun) migrateV1alpha2(kf *yaml.RNode, meta yaml.ResourceMeta, settersPath string) (*yaml.RNode, error) {
	path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck
	kf.SetApiVersion(fixv1.APIVersion)
	r.report(path, "Updated apiVersion to "+fixv1.APIVersion)
	k := fixv1.KptFile{ResourceMeta: yaml.ResourceMeta{TypeMeta: yaml.TypeMeta{APIVersion: fixv1.APIVersion, Kind: "Kptfile"}}}
	if err := decodeStrictly(kf, &k); err != nil {
		return kf, fmt.Errorf("please make sure the package has a valid 'v1' Kptfile: %w", err)
	}
	if k.Pipeline != nil {
		for i, fn := range k.Pipeline.Mutators {
			if !strings.Contains(fn.Image, "apply-setters:v0.1") || len(fn.ConfigMap) == 0 {
				continue
			}
			// the release takes the setters of the first mutator, whichever
			// apply-setters this is
			cm, err := r.release.settersConfigMap(k.Pipeline.Mutators[0].ConfigMap, settersPath)
			if err != nil {
				return kf, err
			}
			r.setters = append(r.setters, cm)
			k.Pipeline.Mutators[i].ConfigMap = nil
			k.Pipeline.Mutators[i].ConfigPath = r.release.settersFile()
			r.report(settersPath, "Moved setters from configMap to configPath")
		}
	}
	return kptfileNode(k, meta.Annotations)
}

// migrateV1alpha1 writes a v1alpha1 Kptfile anew as v1: packageMetadata
// becomes info, upstream upstream and upstreamLock, the openAPI setters an
// apply-setters mutator, the function configs fns the mutators after it,
// and the inventory is kept. Its dependencies and starlark functions go.
func (r *fixRun) migrateV1alpha1(kf *yaml.RNode, meta yaml.ResourceMeta, fns []fixv1.Function, settersPath string) (*yaml.RNode, error) {
	path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck
	old := v1alpha1.KptFile{ResourceMeta: yaml.ResourceMeta{TypeMeta: yaml.TypeMeta{APIVersion: "kpt.dev/v1alpha1", Kind: "Kptfile"}}}
	if err := decodeStrictly(kf, &old); err != nil {
		return kf, fmt.Errorf("please make sure the package has a valid 'v1alpha1' Kptfile: %w", err)
	}
	k := fixv1.KptFile{ResourceMeta: meta}
	k.APIVersion = fixv1.APIVersion
	if pm := old.PackageMeta; pm != nil {
		var emails []string
		if pm.Email != "" {
			emails = []string{pm.Email}
		}
		k.Info = &fixv1.PackageInfo{Site: pm.URL, Emails: emails, License: pm.License, Description: pm.ShortDescription,
			Keywords: pm.Tags, Man: pm.Man}
		r.report(path, `Transformed "packageMetadata" to "info"`)
	}
	if up := old.Upstream; up != nil {
		k.Upstream = &fixv1.Upstream{Type: fixv1.OriginType(up.Type), UpdateStrategy: fixv1.ResourceMerge,
			Git: &fixv1.Git{Repo: up.Git.Repo, Directory: up.Git.Directory, Ref: up.Git.Ref}}
		k.UpstreamLock = &fixv1.UpstreamLock{Type: fixv1.OriginType(up.Type),
			Git: &fixv1.GitLock{Repo: up.Git.Repo, Directory: up.Git.Directory, Ref: up.Git.Ref, Commit: up.Git.Commit}}
		r.report(path, `Transformed "upstream" to "upstream" and "upstreamLock"`)
	}
	setters, err := openAPISetters(kf)
	if err != nil {
		return kf, err
	}
	k.Pipeline = &fixv1.Pipeline{}
	for _, fn := range fns {
		r.report(path, fmt.Sprintf("Added %q to mutators list, please move it to validators section if it is a validator function", fn.Image))
	}
	if len(setters) > 0 {
		cm, err := r.release.settersConfigMap(setters, settersPath)
		if err != nil {
			return kf, err
		}
		r.setters = append(r.setters, cm)
		k.Pipeline.Mutators = append(k.Pipeline.Mutators, fixv1.Function{Image: fixSettersImage, ConfigPath: r.release.settersFile()})
		r.report(path, `Transformed "openAPI" definitions to "apply-setters" function`)
	}
	k.Pipeline.Mutators = append(k.Pipeline.Mutators, fns...)
	if inv := old.Inventory; inv != nil {
		k.Inventory = &fixv1.Inventory{Namespace: inv.Namespace, Name: inv.Name, InventoryID: inv.InventoryID,
			Labels: inv.Labels, Annotations: inv.Annotations}
	}
	return kptfileNode(k, meta.Annotations)
}

// kptfileNode is k written out, with the Kptfile's annotations set again.
func kptfileNode(k fixv1.KptFile, annos map[string]string) (*yaml.RNode, error) {
	b, err := yaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return nil, err
	}
	if err := n.SetAnnotations(annos); err != nil {
		return nil, err
	}
	return reparse(yaml.NewRNode(n.YNode())), nil
}

// decodeStrictly decodes rn, written out, into out; a field out lacks
// fails it.
func decodeStrictly(rn *yaml.RNode, out any) error {
	s, err := rn.String()
	if err != nil {
		return err
	}
	d := yaml.NewDecoder(strings.NewReader(s))
	d.KnownFields(true)
	return d.Decode(out)
}
