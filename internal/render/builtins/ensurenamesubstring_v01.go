package builtins

import (
	"unicode"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ensure-name-substring v0.2.0: the same renaming; the annotations it writes
// back come out as the go-yaml of early 2021 (kyaml v0.10) wrote them, where
// today's encoder double-quotes (oldAnnotationStyle).
func ensureNameSubstringKyaml010(rl *framework.ResourceList) error {
	return ensureNameSubstringOldStyles(rl, ensureNameSubstringConfig{})
}

func ensureNameSubstringOldStyles(rl *framework.ResourceList, c ensureNameSubstringConfig) error {
	err := c.run(rl)
	for _, it := range rl.Items {
		if m := nestedMap(it.YNode(), yaml.MetadataField, yaml.AnnotationsField); m != nil {
			for i := 1; i < len(m.Content); i += 2 {
				oldAnnotationStyle(m.Content[i])
			}
		}
	}
	return err
}

// oldAnnotationStyle restyles a double-quoted string that reads as a string
// without quotes: plain if it is one of YAML 1.1's other booleans (yes, no,
// on, off, y, n), which that encoder took for plain strings, else single-quoted
// where no escape is needed.
func oldAnnotationStyle(n *yaml.Node) {
	if n.Kind != yaml.ScalarNode || n.Style != yaml.DoubleQuotedStyle || n.Tag != yaml.NodeTagString {
		return
	}
	v := n.Value
	if v == "" || resolvesToNonString(v) {
		return
	}
	if _, isBool := yaml11Bools[v]; isBool {
		n.Style = 0 // true and false resolve to booleans, so only the others get here
		return
	}
	for _, r := range v {
		if r == '\n' || r == '\t' || !unicode.IsPrint(r) {
			return
		}
	}
	n.Style = yaml.SingleQuotedStyle
}

// resolvesToNonString tells whether a plain scalar v would read as something
// other than a string under YAML 1.2's core schema.
func resolvesToNonString(v string) bool {
	n := yaml.Node{Kind: yaml.ScalarNode, Value: v}
	return n.ShortTag() != yaml.NodeTagString
}

// ensure-name-substring v0.1.x: the Kptfile is renamed like any other
// resource and depends-on annotations are left alone; v0.1.1 writes
// annotations back as v0.2.0 does; v0.1.0 (kustomize api v0.8.4) leaves
// local-config items out of its output (kpt deletes their files) and writes
// every other item back through JSON (jsonRoundTrip).
type ensureNameSubstringV01 struct {
	withoutLocalConfig bool // v0.1.0
}

func (v ensureNameSubstringV01) process(rl *framework.ResourceList) error {
	if !v.withoutLocalConfig {
		return ensureNameSubstringOldStyles(rl, ensureNameSubstringConfig{v01: true})
	}
	var kept []*yaml.RNode
	for _, it := range rl.Items {
		if !isLocalConfig(it) {
			kept = append(kept, it)
		}
	}
	rl.Items = kept
	if err := (ensureNameSubstringConfig{v01: true}).run(rl); err != nil {
		return err
	}
	items, err := roundTripItems(rl.Items, false)
	if err != nil {
		return err
	}
	rl.Items = items
	return nil
}
