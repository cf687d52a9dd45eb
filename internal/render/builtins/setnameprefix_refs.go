package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The references set-name-prefix follows (the catalog's bind function's
// reference table of late 2022), as the catalog reads them.

// A nameRef is one reference to an object: the group, kind, name and
// namespace it names, and where its name is written (namePath in node).
type nameRef struct {
	group, kind     string
	name, namespace string
	node            *yaml.Node
	namePath        []string
}

// A refField is a field of objects of kind of holding a reference to an
// object of one of targets (any kind where targets is empty).
type refField struct {
	of      gvk
	path    string
	targets []gvk
	// namespacePath is where, in the reference, a namespace is written
	namespacePath string
}

var (
	cnrmContainerCluster = gvk{"container.cnrm.cloud.google.com", "v1beta1", "ContainerCluster"}
	cnrmNodePool         = gvk{"container.cnrm.cloud.google.com", "v1beta1", "ContainerNodePool"}
	cnrmPolicyMember     = gvk{"iam.cnrm.cloud.google.com", "v1beta1", "IAMPolicyMember"}
	cnrmPartialPolicy    = gvk{"iam.cnrm.cloud.google.com", "v1beta1", "IAMPartialPolicy"}
	cnrmServiceAccount   = gvk{"iam.cnrm.cloud.google.com", "v1beta1", "IAMServiceAccount"}
	cnrmFolder           = gvk{"resourcemanager.cnrm.cloud.google.com", "v1beta1", "Folder"}
	cnrmProject          = gvk{"resourcemanager.cnrm.cloud.google.com", "v1beta1", "Project"}
	cnrmService          = gvk{"serviceusage.cnrm.cloud.google.com", "v1beta1", "Service"}
	rbacRole             = gvk{"rbac.authorization.k8s.io", "v1", "Role"}
	rbacClusterRole      = gvk{"rbac.authorization.k8s.io", "v1", "ClusterRole"}
	rbacRoleBinding      = gvk{"rbac.authorization.k8s.io", "v1", "RoleBinding"}
	coreServiceAccount   = gvk{"", "v1", "ServiceAccount"}
	porchWIBinding       = gvk{"config.porch.kpt.dev", "v1alpha1", "WorkloadIdentityBinding"}
)

var setNamePrefixRefs = []refField{
	{of: cnrmNodePool, path: "spec.clusterRef", targets: []gvk{cnrmContainerCluster}},
	{of: cnrmNodePool, path: "spec.nodeConfig.serviceAccountRef", targets: []gvk{cnrmServiceAccount}},
	{of: cnrmPolicyMember, path: "spec.memberFrom.serviceAccountRef", targets: []gvk{cnrmServiceAccount}},
	{of: cnrmFolder, path: "spec.folderRef", targets: []gvk{cnrmFolder}, namespacePath: "namespace"},
	{of: cnrmProject, path: "spec.folderRef", targets: []gvk{cnrmFolder}, namespacePath: "namespace"},
	{of: cnrmPolicyMember, path: "spec.resourceRef", namespacePath: "namespace"},
	{of: cnrmPartialPolicy, path: "spec.resourceRef"},
	{of: cnrmPartialPolicy, path: "spec.bindings[].members[].memberFrom.serviceAccountRef", targets: []gvk{cnrmServiceAccount}},
	{of: cnrmService, path: "spec.projectRef", targets: []gvk{cnrmProject}, namespacePath: "namespace"},
	{of: rbacRoleBinding, path: "roleRef", targets: []gvk{rbacRole, rbacClusterRole}},
	{of: rbacRoleBinding, path: "subjects[]", targets: []gvk{
		{"rbac.authorization.k8s.io", "v1", "User"}, {"rbac.authorization.k8s.io", "v1", "Group"}, coreServiceAccount}},
	{of: porchWIBinding, path: "spec.resourceRef", targets: []gvk{cnrmServiceAccount}},
	{of: porchWIBinding, path: "spec.serviceAccountRef", targets: []gvk{coreServiceAccount}, namespacePath: "namespace"},
}

// The kinds a reference may name, and whether they are cluster-scoped.
var setNamePrefixKinds = map[gvk]bool{
	cnrmContainerCluster: false, cnrmNodePool: false, cnrmPolicyMember: false,
	cnrmServiceAccount: false, cnrmProject: false, cnrmFolder: false,
	rbacClusterRole: true, rbacRole: false, coreServiceAccount: false, porchWIBinding: false,
}

// String is k8s.io/apimachinery's GroupVersionKind.String().
func (g gvk) String() string { return g.Group + "/" + g.Version + ", Kind=" + g.Kind }

// apiVersion is the apiVersion naming g's group and version.
func (g gvk) apiVersion() string { return groupVersionString(g.Group, g.Version) }

// errNilSubObject is the release dereferencing a missing map on a
// reference's path.
var errNilSubObject = Failure{"panic: runtime error: invalid memory address or nil pointer dereference"}

// visitNameRefs calls visit with every reference of every object, as the
// catalog's VisitRefs: an object's metadata.namespace, then its
// ownerReferences, then its fields of setNamePrefixRefs.
func visitNameRefs(items []*yaml.RNode, visit func(nameRef) error) error {
	for _, obj := range items {
		root := obj.YNode()
		if ns := getString(obj, yaml.MetadataField, yaml.NamespaceField); ns != "" {
			ref := nameRef{kind: "Namespace", name: ns, node: root, namePath: []string{yaml.MetadataField, yaml.NamespaceField}}
			if err := visit(ref); err != nil {
				return err
			}
		}
		refs, err := ownerRefs(obj)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if err := visit(ref); err != nil {
				return err
			}
		}
		og := objectGVK(obj)
		for i := range setNamePrefixRefs {
			f := &setNamePrefixRefs[i]
			if f.of != og {
				continue
			}
			if err := f.visit(obj, root, strings.Split(f.path, "."), visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// sdkMap is the SDK's GetMap: the value at key, a map to read (nil when
// missing; a value that is no map reads as an empty one).
func sdkMap(n *yaml.Node, key string) *yaml.Node {
	v, found := mapValue(n, key)
	if !found {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return v
}

// sdkSlice is the SDK's GetSlice: the maps of the sequence at key, none when
// it is no sequence or holds anything but maps.
func sdkSlice(n *yaml.Node, key string) []*yaml.Node {
	v, found := mapValue(n, key)
	if !found || v.Kind != yaml.SequenceNode {
		return nil
	}
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			return nil
		}
	}
	return v.Content
}

// sdkGet is the SDK's GetString on a map.
func sdkGet(n *yaml.Node, key string) string {
	v, _ := mapValue(n, key)
	return sdkString(v)
}

func ownerRefs(obj *yaml.RNode) ([]nameRef, error) {
	meta := sdkMap(obj.YNode(), yaml.MetadataField)
	if meta == nil {
		return nil, errNilSubObject
	}
	var refs []nameRef
	for _, o := range sdkSlice(meta, "ownerReferences") {
		ns := sdkGet(o, "namespace")
		if ns == "" {
			ns = getString(obj, yaml.MetadataField, yaml.NamespaceField)
		}
		name, apiVersion, kind := sdkGet(o, "name"), sdkGet(o, "apiVersion"), sdkGet(o, "kind")
		switch {
		case name == "":
			return nil, fmt.Errorf("expected name to be set")
		case apiVersion == "":
			return nil, fmt.Errorf("expected apiVersion to be set")
		case kind == "":
			return nil, fmt.Errorf("expected kind to be set")
		}
		group, _, ok := parseGroupVersion(apiVersion)
		if !ok {
			return nil, fmt.Errorf("error parsing apiVersion %q: unexpected GroupVersion string: %v", apiVersion, apiVersion)
		}
		refs = append(refs, nameRef{group: group, kind: kind, name: name, namespace: ns, node: o, namePath: []string{"name"}})
		if ns != "" {
			ref, err := refNamespace(o, "namespace")
			if err != nil {
				return nil, err
			}
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// refNamespace is the reference to the Namespace a reference names at path.
func refNamespace(n *yaml.Node, path ...string) (nameRef, error) {
	v, _, _ := nestedNode(n, path...)
	ns := sdkString(v)
	if ns == "" {
		return nameRef{}, fmt.Errorf("expected namespace to be set")
	}
	return nameRef{kind: "Namespace", name: ns, node: n, namePath: path}, nil
}

// visit walks fields from n to the references at f's path.
func (f *refField) visit(obj *yaml.RNode, n *yaml.Node, fields []string, visit func(nameRef) error) error {
	if len(fields) == 0 {
		if n == nil || sdkGet(n, "external") != "" {
			return nil
		}
		ref, err := f.ref(obj, n)
		if err != nil {
			return err
		}
		if err := visit(ref); err != nil {
			return err
		}
		if f.namespacePath == "" {
			return nil
		}
		path := strings.Split(f.namespacePath, ".")
		if v, _, _ := nestedNode(n, path...); sdkString(v) == "" {
			return nil
		}
		nsRef, err := refNamespace(n, path...)
		if err != nil {
			return err
		}
		return visit(nsRef)
	}
	if n == nil {
		return errNilSubObject
	}
	field := fields[0]
	if name, ok := strings.CutSuffix(field, "[]"); ok {
		for _, child := range sdkSlice(n, name) {
			if err := f.visit(obj, child, fields[1:], visit); err != nil {
				return err
			}
		}
		return nil
	}
	return f.visit(obj, sdkMap(n, field), fields[1:], visit)
}

// ref reads the reference in n: its target's kind and apiVersion default
// from the field's targets, its namespace from the object's.
func (f *refField) ref(obj *yaml.RNode, n *yaml.Node) (nameRef, error) {
	name, namespace := sdkGet(n, "name"), sdkGet(n, "namespace")
	apiVersion, apiGroup, kind := sdkGet(n, "apiVersion"), sdkGet(n, "apiGroup"), sdkGet(n, "kind")
	targets := f.targets
	if kind == "" || apiVersion == "" {
		if len(targets) == 0 {
			if kind == "" {
				return nameRef{}, fmt.Errorf("expected kind to be specified in ref %v:%v", f.of, f.path)
			}
			return nameRef{}, fmt.Errorf("expected apiVersion to be specified in ref %v:%v", f.of, f.path)
		}
		if kind != "" {
			var matches []gvk
			for _, t := range targets {
				if t.Kind == kind && (apiGroup == "" || t.Group == apiGroup) {
					matches = append(matches, t)
				}
			}
			if len(matches) == 0 {
				return nameRef{}, fmt.Errorf("unexpected target kind=%q, group=%q", kind, apiGroup)
			}
			targets = matches
		}
		if len(targets) != 1 {
			return nameRef{}, fmt.Errorf("found multiple target kinds")
		}
		if kind == "" {
			kind = targets[0].Kind
		}
		if apiVersion == "" {
			apiVersion = targets[0].apiVersion()
		}
	}
	group, version, ok := parseGroupVersion(apiVersion)
	if !ok {
		return nameRef{}, fmt.Errorf("error parsing apiVersion %q: unexpected GroupVersion string: %v", apiVersion, apiVersion)
	}
	target := gvk{group, version, kind}
	if len(f.targets) == 1 && f.targets[0] != target {
		return nameRef{}, fmt.Errorf("unexpected GVK for path %q: got %v want %v", f.path, target, f.targets[0])
	}
	clusterScoped, known := setNamePrefixKinds[target]
	if !known {
		return nameRef{}, fmt.Errorf("kind %v not known", target)
	}
	if namespace == "" && !clusterScoped {
		namespace = getString(obj, yaml.MetadataField, yaml.NamespaceField)
	}
	if clusterScoped && namespace != "" {
		return nameRef{}, fmt.Errorf("namespace not expected on cluster-scoped kind %v", target)
	}
	if name == "" {
		return nameRef{}, fmt.Errorf("name not set on reference")
	}
	return nameRef{group: group, kind: kind, name: name, namespace: namespace, node: n, namePath: []string{"name"}}, nil
}
