package builtins

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// enable-gcp-services (catalog v0.1.0, kyaml v0.13): every
// blueprints.cloud.google.com/v1alpha1 ProjectServiceSet is made local
// config and its spec.services become serviceusage Service resources,
// <set>-<the service's first label>, in <the set's dir>/<namespace>/
// service_<name>.yaml, with the set's annotations (its path, index and
// local-config ones aside), namespace and projectID and an ownerReference
// annotation naming the set. Services an earlier run generated for the set
// (that annotation) are pruned first: one info result per service
// generated, pruned, or both ("recreated service", at its new file).
const (
	serviceSetAPIVersion = "blueprints.cloud.google.com/v1alpha1"
	serviceSetOwner      = "blueprints.cloud.google.com/ownerReference"
)

// serviceSet is a ProjectServiceSet as the release reads it.
type serviceSet struct {
	yaml.ResourceMeta `yaml:",inline"`
	Spec              struct {
		Services  []string `yaml:"services"`
		ProjectID string   `yaml:"projectID,omitempty"`
	} `yaml:"spec"`
}

// gcpService is the Service resource the release generates, field for
// field in its order.
type gcpService struct {
	yaml.ResourceMeta `yaml:",inline"`
	Spec              struct {
		ResourceID string `yaml:"resourceID"`
		ProjectRef struct {
			External string `yaml:"external,omitempty"`
		} `yaml:"projectRef,omitempty"`
	} `yaml:"spec"`
}

func enableGCPServices(rl *framework.ResourceList) error {
	items, results, err := generateServices(rl.Items)
	if err != nil {
		rl.Results = append(rl.Results, &framework.Result{Message: "failed to add services: " + err.Error(),
			Severity: framework.Error})
		// the framework prints the error, then the release's main again
		return Failure{err.Error() + err.Error() + "\n"}
	}
	rl.Items = items
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.File.Path != b.File.Path {
			return a.File.Path < b.File.Path
		}
		if a.File.Index != b.File.Index {
			return a.File.Index < b.File.Index
		}
		return fmt.Sprintf("%v,%s", *a.ResourceRef, a.Message) < fmt.Sprintf("%v,%s", *b.ResourceRef, b.Message)
	})
	rl.Results = append(rl.Results, results...)
	return nil
}

func generateServices(items []*yaml.RNode) ([]*yaml.RNode, framework.Results, error) {
	var sets []*serviceSet
	for _, it := range items {
		if it.GetApiVersion() != serviceSetAPIVersion || it.GetKind() != "ProjectServiceSet" {
			continue
		}
		if err := it.PipeE(yaml.SetAnnotation(filters.LocalConfigAnnotation, "true")); err != nil {
			return nil, nil, err
		}
		s, err := it.String()
		if err != nil {
			return nil, nil, err
		}
		var set serviceSet
		if err := yaml.Unmarshal([]byte(s), &set); err != nil {
			return nil, nil, err
		}
		sets = append(sets, &set)
	}
	var generated []*yaml.RNode
	var results framework.Results
	for _, set := range sets {
		if len(set.Spec.Services) < 1 {
			return items, nil, fmt.Errorf("at least one service must be specified under `spec.services[]`")
		}
		owner := path.Join("blueprints.cloud.google.com", "ProjectServiceSet", set.Name)
		pruned := map[string]*framework.Result{}
		kept := items[:0]
		for _, it := range items {
			if it.GetAnnotations()[serviceSetOwner] != owner {
				kept = append(kept, it)
				continue
			}
			r, id, err := serviceResult("pruned service", it)
			if err != nil {
				return items, nil, err
			}
			pruned[id] = r
		}
		items = kept
		made := map[string]*framework.Result{}
		for _, name := range set.Spec.Services {
			if len(strings.Split(name, ".")) < 3 {
				return items, nil, fmt.Errorf("invalid service specified: %s", name)
			}
		}
		for _, name := range set.Spec.Services {
			svc, err := set.service(name, owner)
			if err != nil {
				return nil, nil, err
			}
			r, id, err := serviceResult("generated service", svc)
			if err != nil {
				return nil, nil, err
			}
			made[id] = r
			generated = append(generated, svc)
		}
		for id, r := range pruned {
			if g, again := made[id]; again {
				r.Message, r.File = "recreated service", g.File
				delete(made, id)
			}
			results = append(results, r)
		}
		for _, r := range made {
			results = append(results, r)
		}
	}
	return append(items, generated...), results, nil
}

// service is the Service the set generates for one of its services.
func (set *serviceSet) service(name, owner string) (*yaml.RNode, error) {
	var s gcpService
	s.APIVersion, s.Kind = "serviceusage.cnrm.cloud.google.com/v1beta1", "Service"
	s.Name = fmt.Sprintf("%s-%s", set.Name, strings.Split(name, ".")[0])
	s.Spec.ResourceID = name
	s.Spec.ProjectRef.External = set.Spec.ProjectID
	b, err := yaml.Marshal(s)
	if err != nil {
		return nil, err
	}
	svc, err := yaml.Parse(string(b))
	if err != nil {
		return nil, err
	}
	for k, v := range set.Annotations {
		switch k {
		case kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, kioutil.IndexAnnotation, //nolint:staticcheck
			kioutil.LegacyIndexAnnotation, filters.LocalConfigAnnotation: //nolint:staticcheck
			continue
		}
		if err := svc.PipeE(yaml.SetAnnotation(k, v)); err != nil {
			return nil, err
		}
	}
	if err := svc.PipeE(yaml.SetAnnotation(serviceSetOwner, owner)); err != nil {
		return nil, err
	}
	if set.Namespace != "" {
		if err := svc.PipeE(yaml.SetK8sNamespace(set.Namespace)); err != nil {
			return nil, err
		}
	}
	meta, err := svc.GetMeta()
	if err != nil {
		return nil, err
	}
	file := kioutil.CreatePathAnnotationValue(path.Dir(set.Annotations[kioutil.PathAnnotation]), meta)
	if err := svc.PipeE(yaml.SetAnnotation(kioutil.PathAnnotation, file)); err != nil {
		return nil, err
	}
	return svc, nil
}

// serviceResult is the result of a service generated or pruned, and the
// service's id.
func serviceResult(msg string, it *yaml.RNode) (*framework.Result, string, error) {
	meta, err := it.GetMeta()
	if err != nil {
		return nil, "", err
	}
	file, _, err := kioutil.GetFileAnnotations(it)
	if err != nil {
		return nil, "", err
	}
	id := resid.NewResIdWithNamespace(resid.GvkFromNode(it), meta.Name, meta.Namespace).String()
	ref := meta.GetIdentifier()
	return &framework.Result{ResourceRef: &ref, File: &framework.File{Path: file}, Message: msg, Severity: framework.Info}, id, nil
}
