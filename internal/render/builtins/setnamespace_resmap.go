package builtins

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-namespace v0.1.x and v0.2.0: kustomize's namespace transformer over a
// resource map holding every item, local-config ones (the Kptfile, function
// configs, package-context) and kustomization.yaml included:
//
//   - every resource kustomize does not know to be cluster-scoped (unknown
//     kinds, a Kustomization, the Kptfile) gets metadata.namespace, created
//     where missing;
//   - a Namespace is renamed; an APIService gets spec.service.namespace
//     (created where missing), a CRD's conversion webhook service namespace
//     is replaced where present;
//   - RoleBinding and ClusterRoleBinding subjects named "default" get the
//     namespace, and from v0.2.0 also ServiceAccount subjects naming a
//     ServiceAccount among the items;
//   - depends-on annotations are left alone;
//   - every item comes back through JSON (jsonRoundTrip);
//   - no results on success; a bad config or a failure is one error result
//     and a non-zero exit. Before v0.1.4 (kustomize api v0.7) the map held
//     unstructured objects (kunstructItems).
type setNamespaceResmap struct {
	unstructured    bool // v0.1.0–v0.1.3: kunstructItems
	serviceAccounts bool // v0.2.0: ServiceAccount subjects found among the items
}

func (v setNamespaceResmap) process(rl *framework.ResourceList) error {
	var ns string
	configure := func(fc *yaml.RNode) (err error) {
		ns, err = setNamespaceResmapConfig(fc)
		return err
	}
	return runResmap(rl, v.unstructured, configure, func(items []*yaml.RNode) {
		serviceAccounts := map[string]bool{}
		for _, it := range items {
			if getString(it, yaml.KindField) == "ServiceAccount" {
				serviceAccounts[getString(it, yaml.MetadataField, yaml.NameField)] = true
			}
		}
		for _, it := range items {
			if it.YNode().Kind == yaml.MappingNode {
				v.setOn(it, ns, serviceAccounts)
			}
		}
	})
}

func (v setNamespaceResmap) setOn(it *yaml.RNode, ns string, serviceAccounts map[string]bool) {
	n := it.YNode()
	gvk := resid.GvkFromNode(it)
	if !gvk.IsClusterScoped() {
		_ = setNestedString(n, ns, yaml.MetadataField, yaml.NamespaceField)
	}
	switch {
	case gvk.Kind == "Namespace":
		_ = setNestedString(n, ns, yaml.MetadataField, yaml.NameField)
	case gvk.Kind == "APIService" && gvk.Group == "apiregistration.k8s.io":
		_ = setNestedString(n, ns, "spec", "service", "namespace")
	case gvk.Kind == "CustomResourceDefinition" && gvk.Group == "apiextensions.k8s.io":
		path := []string{"spec", "conversion", "webhook", "clientConfig", "service", "namespace"}
		if _, found, _ := nestedString(it, path...); found {
			_ = setNestedString(n, ns, path...)
		}
	case gvk.Kind == "RoleBinding" || gvk.Kind == "ClusterRoleBinding":
		for _, s := range nestedSlice(n, "subjects") {
			srn := yaml.NewRNode(s)
			name := getString(srn, "name")
			if name == "default" || v.serviceAccounts && getString(srn, "kind") == "ServiceAccount" && serviceAccounts[name] {
				_ = setNestedString(s, ns, "namespace")
			}
		}
	}
}

func setNamespaceResmapConfig(fc *yaml.RNode) (string, error) {
	var ns string
	switch {
	case fc == nil:
		return "", fmt.Errorf("`functionConfig` must be a `ConfigMap` or `SetNamespace`")
	case getString(fc, yaml.APIVersionField) == "v1" && getString(fc, yaml.KindField) == "ConfigMap":
		ns = dataMap(fc)["namespace"]
	case getString(fc, yaml.APIVersionField) == fnConfigGroup+"/"+fnConfigVersion &&
		(getString(fc, yaml.KindField) == "SetNamespace" || getString(fc, yaml.KindField) == "SetNamespaceConfig"):
		ns = getString(fc, "namespace")
	default:
		return "", fmt.Errorf("`functionConfig` must be a `ConfigMap` or `SetNamespace`")
	}
	if ns == "" {
		return "", fmt.Errorf("input namespace cannot be empty")
	}
	return ns, nil
}
