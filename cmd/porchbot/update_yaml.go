package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/update"
)

// checkYAML parses every YAML file (*.yaml, *.yml, Kptfile) of a package,
// every document, so a file that does not parse is named (with its line)
// before anything is merged or written. where prefixes every path: a
// directory ending in "/", or "upstream REPO/DIR@REF: ".
func checkYAML(where string, files update.Files) error {
	names := make([]string, 0, len(files))
	for p := range files {
		switch path.Ext(p) {
		case ".yaml", ".yml":
		default:
			if path.Base(p) != kptfile.FileName {
				continue
			}
		}
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		dec := yaml.NewDecoder(bytes.NewReader(files[p]))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s%s: %w", where, p, err)
			}
		}
	}
	return nil
}
