package builtins

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// export-terraform's output: the ConfigMap terraform, and the items in
// the order its SDK writes them.

// addTerraformConfigMap appends the ConfigMap terraform with data, unless
// the items hold one already (apiVersion v1, no namespace).
func addTerraformConfigMap(items []*yaml.RNode, data map[string]string) ([]*yaml.RNode, error) {
	for _, it := range items {
		if getString(it, yaml.APIVersionField) == "v1" && getString(it, yaml.KindField) == "ConfigMap" &&
			getString(it, yaml.MetadataField, yaml.NameField) == "terraform" &&
			getString(it, yaml.MetadataField, yaml.NamespaceField) == "" {
			return items, nil
		}
	}
	cm := yaml.MustParse(`apiVersion: v1
kind: ConfigMap
metadata:
  name: terraform
  annotations:
    blueprints.cloud.google.com/flavor: terraform
    blueprints.cloud.google.com/syntax: hcl
    config.kubernetes.io/local-config: "true"
    ` + kioutil.PathAnnotation + `: terraform.yaml
`)
	if len(data) > 0 {
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range keys {
			// a block, where YAML allows one (as the SDK writes it)
			m.Content = append(m.Content, stringNode(k), &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString,
				Value: data[k], Style: yaml.LiteralStyle})
		}
		cm.YNode().Content = append(cm.YNode().Content, stringNode("data"), m)
		// read back as kpt reads the SDK's output: a value YAML cannot
		// write as a block comes back double-quoted
		s, err := cm.String()
		if err != nil {
			return nil, fmt.Errorf("export-terraform: writing the ConfigMap: %w", err)
		}
		if cm, err = yaml.Parse(s); err != nil {
			return nil, fmt.Errorf("export-terraform: reading the ConfigMap back: %w", err)
		}
	}
	return append(items, cm), nil
}

// bySDKIdentifier orders items as the release's SDK does: by apiVersion,
// kind, namespace and name, joined by spaces.
type bySDKIdentifier []*yaml.RNode

func (s bySDKIdentifier) Len() int      { return len(s) }
func (s bySDKIdentifier) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s bySDKIdentifier) Less(i, j int) bool {
	id := func(n *yaml.RNode) string {
		return strings.Join([]string{getString(n, yaml.APIVersionField), getString(n, yaml.KindField),
			getString(n, yaml.MetadataField, yaml.NamespaceField), getString(n, yaml.MetadataField, yaml.NameField)}, " ")
	}
	return id(s[i]) < id(s[j])
}
