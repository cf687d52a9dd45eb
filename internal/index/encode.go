package index

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Header is the comment the index starts with.
const Header = "# Package index of a porchbot repository (porchbot.dev/v1alpha1 PackageIndex).\n# Schema and digest: docs/index.md. Rebuild: porchbot index <dir|git-url>.\n"

// Encode is the index's bytes: the same index gives the same bytes.
func Encode(idx *Index) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(Header)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(idx); err != nil {
		return nil, fmt.Errorf("encode index: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode index: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode reads index bytes, refusing another apiVersion or kind.
func Decode(data []byte) (*Index, error) {
	var idx Index
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	if idx.APIVersion != APIVersion || idx.Kind != Kind {
		return nil, fmt.Errorf("read index: apiVersion %q kind %q, want %s %s", idx.APIVersion, idx.Kind, APIVersion, Kind)
	}
	return &idx, nil
}
