package builtins

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// cutOnDashes reads helm's output as render-helm-chart v0.2.0–v0.2.1 did:
// cut at every "---", a document separator or not (a PEM block's
// "-----BEGIN", a value's "a---b"), each piece parsed as one object by
// the SDK's ParseKubeObject. A piece with no object (a comment, blank
// lines) is skipped; any other that is not one mapping fails, with the
// piece in the message; a piece that is a mapping, whole resource or not,
// is a resource.
func cutOnDashes(out string) ([]*yaml.RNode, error) {
	var objs []*yaml.RNode
	for _, piece := range strings.Split(out, "---") {
		if piece == "" {
			continue
		}
		maps, err := sdkObjects(piece)
		if err == nil && len(maps) != 1 {
			if len(maps) == 0 {
				continue
			}
			err = fmt.Errorf("expected exactly one object, got %d", len(maps))
		}
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", piece, err)
		}
		objs = append(objs, yaml.NewRNode(maps[0]))
	}
	return objs, nil
}

// sdkObjects are the mappings the kpt functions SDK of May 2022 found in
// YAML (its ParseKubeObject): every document's, where every document is a
// mapping or empty.
func sdkObjects(in string) ([]*yaml.Node, error) {
	var maps []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewBufferString(in))
	for {
		doc := &yaml.Node{}
		err := dec.Decode(doc)
		if errors.Is(err, io.EOF) {
			return maps, nil
		}
		if err != nil {
			return nil, fmt.Errorf("failed to parse input bytes: %w", err)
		}
		for _, n := range doc.Content {
			if n.Kind != yaml.MappingNode {
				// the SDK printed the yaml.v3 Kind, a number
				return nil, fmt.Errorf("failed to extract objects: unhandled node kind %d", uint32(n.Kind))
			}
			maps = append(maps, n)
		}
	}
}
