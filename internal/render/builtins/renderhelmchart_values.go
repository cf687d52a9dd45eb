package builtins

import (
	"fmt"

	"dario.cat/mergo"
	"helm.sh/helm/v3/pkg/chartutil"
	sigsyaml "sigs.k8s.io/yaml"
)

// values are the values files the chart is rendered with, as the release
// makes them from the files read reads.
func (h *renderHelmChart) values(c *helmChart, read func(string) ([]byte, error)) ([][]byte, error) {
	if h.rel.v010 {
		return c.helmValuesV010(read)
	}
	return c.helmValues(func(f string) ([]byte, error) { return h.rel.readValuesFile(read, f) })
}

// helmValues are the values files the chart is rendered with, as the
// release makes them: each values file is read and, unless valuesMerge is
// replace, merged with valuesInline (override: inline wins where it is
// not a zero value, which mergo leaves alone; merge: the file wins), and
// the result becomes valuesInline for the next file; each result is
// handed to Helm as a values file, the later ones over the earlier (Helm's
// -f).
//
// read reads a values file by the path the config names.
func (c *helmChart) helmValues(read func(string) ([]byte, error)) ([][]byte, error) {
	var out [][]byte
	for _, f := range c.Values.ValuesFiles {
		b, err := read(f)
		if err != nil {
			return nil, err
		}
		if c.Values.ValuesMerge != helmMergeReplace {
			file := map[string]any{}
			if err := sigsyaml.Unmarshal(b, &file); err != nil {
				return nil, err
			}
			opt := mergo.WithOverride
			if c.Values.ValuesMerge == helmMergeMerge {
				opt = func(*mergo.Config) {}
			}
			if err := mergo.Merge(&file, c.Values.ValuesInline, opt); err != nil {
				return nil, err
			}
			c.Values.ValuesInline = file
		}
		y, err := sigsyaml.Marshal(c.Values.ValuesInline)
		if err != nil {
			return nil, err
		}
		out = append(out, y)
	}
	return out, nil
}

// readHelmValues reads values files as Helm reads its -f files, the later
// over the earlier.
func readHelmValues(docs [][]byte) (map[string]any, error) {
	out := map[string]any{}
	for i, y := range docs {
		vals, err := chartutil.ReadValues(y)
		if err != nil {
			return nil, fmt.Errorf("failed to parse values file %d: %w", i+1, err)
		}
		out = mergeHelmValues(out, vals)
	}
	return out, nil
}

// mergeHelmValues puts b over a as Helm merges its -f files: maps merge
// key by key, anything else in b replaces what a has.
func mergeHelmValues(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeHelmValues(am, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}
