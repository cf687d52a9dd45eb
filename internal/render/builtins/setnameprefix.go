package builtins

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-name-prefix (catalog v0.0.1–v0.0.3, the functions SDK of October 2022;
// v0.0.3 as re-tagged in 2025 behaves alike): every resource named
// `<oldPrefix>` or `<oldPrefix>-<rest>` (oldPrefix "packagename" by default) is
// renamed to `<prefix>` or `<prefix>-<rest>`, the prefix being the package's
// name (the package-context ConfigMap `kptfile.kpt.dev`, `data.name`) unless a
// ConfigMap config's `data.prefix` says otherwise. Local-config resources and
// ResourceGroups keep their names. Each rename is the catalog's bind rename:
// the object gets its new name (and its namespace set again, `""` where it had
// none), then the references to it follow, in every resource: metadata.namespace
// (for a Namespace), ownerReferences, RoleBinding roleRef and subjects, and
// the Config Connector and Porch references of setNamePrefixRefs. The first
// reference the rename cannot read stops the function with an error result
// (exit code 0, the renames so far kept).

const (
	packageContextName = builtinConfigMapName
	defaultOldPrefix   = "packagename"
)

func setNamePrefix(rl *framework.ResourceList) error {
	prefix, err := packageContextPrefix(rl.Items)
	if err != nil {
		return Failure{"failed to evaluate function: " + err.Error()}
	}
	oldPrefix := defaultOldPrefix
	fc := rl.FunctionConfig
	if fc == nil || fc.YNode() == nil {
		fc = yaml.NewMapRNode(nil) // the SDK's empty object: a ConfigMap to IsGVK
	}
	if !isGVK(fc, "", "v1", "ConfigMap") {
		err := fmt.Errorf("functionConfig error: unknown functionConfig Kind /, Kind=")
		rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, rl.FunctionConfig))
		return nil
	}
	data := nestedMap(fc.YNode(), "data")
	if v, found := mapValue(data, "prefix"); found {
		prefix = sdkString(v)
	}
	if v, found := mapValue(data, "oldPrefix"); found {
		oldPrefix = sdkString(v)
	}
	if prefix == "" {
		return Failure{"failed to evaluate function: `data.prefix` should not be empty"}
	}
	if err := renameWithPrefix(rl.Items, prefix, oldPrefix); err != nil {
		if f, ok := err.(Failure); ok {
			return f
		}
		rl.Results = append(rl.Results, errorResult(err))
	}
	return nil
}

// sdkString is a scalar's value if it is a string, else "" (the SDK's
// GetString).
func sdkString(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || shortTag(n) != yaml.NodeTagString {
		return ""
	}
	return n.Value
}

// packageContextPrefix is the package name the package-context object holds:
// the one local-config resource of any kind named kptfile.kpt.dev.
func packageContextPrefix(items []*yaml.RNode) (string, error) {
	var matches []*yaml.RNode
	for _, it := range items {
		if isLocalConfig(it) && getString(it, yaml.MetadataField, yaml.NameField) == packageContextName {
			matches = append(matches, it)
		}
	}
	switch {
	case len(matches) == 0:
		return "", fmt.Errorf("unable to find package context object")
	case len(matches) != 1:
		return "", fmt.Errorf("found multiple matches for package-context object")
	}
	name, _, err := nestedString(matches[0], "data", "name")
	if err != nil {
		g := objectGVK(matches[0])
		return "", fmt.Errorf("error getting data.name from package context object: "+
			"Resource(apiVersion=%v, kind=%v) has unmatched field type %q in fieldpath %v",
			groupVersionString(g.Group, g.Version), g.Kind, "string", ".data.name")
	}
	if name == "" {
		return "", fmt.Errorf("package name (data.name) not set in package context object")
	}
	return name, nil
}

// renameWithPrefix renames, one after the other, the resources whose names
// carry oldPrefix.
func renameWithPrefix(items []*yaml.RNode, prefix, oldPrefix string) error {
	for _, it := range items {
		if isLocalConfig(it) || objectGVK(it) == (gvk{Group: "kpt.dev", Version: "v1alpha1", Kind: "ResourceGroup"}) {
			continue
		}
		oldName := getString(it, yaml.MetadataField, yaml.NameField)
		var newName string
		switch {
		case oldName == "":
			continue
		case oldName == oldPrefix:
			newName = prefix
		case strings.HasPrefix(oldName, oldPrefix+"-"):
			newName = prefix + "-" + strings.TrimPrefix(oldName, oldPrefix+"-")
		default:
			continue
		}
		if err := renameObject(it, newName, items); err != nil {
			return err
		}
	}
	return nil
}

// renameObject is the catalog's bind rename of obj to newName in its own
// namespace.
func renameObject(obj *yaml.RNode, newName string, items []*yaml.RNode) error {
	oldName := getString(obj, yaml.MetadataField, yaml.NameField)
	ns := getString(obj, yaml.MetadataField, yaml.NamespaceField)
	apiVersion, kind := getString(obj, yaml.APIVersionField), getString(obj, yaml.KindField)
	switch {
	case apiVersion == "":
		return fmt.Errorf("`apiVersion` is required")
	case kind == "":
		return fmt.Errorf("`kind` is required")
	}
	group, version, ok := parseGroupVersion(apiVersion)
	if !ok {
		return fmt.Errorf("error parsing apiVersion %q: unexpected GroupVersion string: %v", apiVersion, apiVersion)
	}
	var matches []*yaml.RNode
	for _, it := range items {
		if getString(it, yaml.MetadataField, yaml.NameField) == oldName &&
			getString(it, yaml.MetadataField, yaml.NamespaceField) == ns && isGVK(it, group, version, kind) {
			matches = append(matches, it)
		}
	}
	if len(matches) > 1 {
		return fmt.Errorf("multiple objects found matching %s/%s:%s/%s", groupVersionString(group, version), kind, ns, newName)
	}
	for _, m := range matches {
		if err := setNestedString(m.YNode(), newName, yaml.MetadataField, yaml.NameField); err != nil {
			return err
		}
		if err := setNestedString(m.YNode(), ns, yaml.MetadataField, yaml.NamespaceField); err != nil {
			return err
		}
	}
	return visitNameRefs(items, func(r nameRef) error {
		if r.group == group && r.kind == kind && r.namespace == ns && r.name == oldName {
			return setNestedString(r.node, newName, r.namePath...)
		}
		return nil
	})
}

// groupVersionString is k8s.io/apimachinery's GroupVersion.String().
func groupVersionString(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}
