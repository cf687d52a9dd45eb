package variants

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// Describe says, one line each, what m does to a downstream package, for
// the pull request body: the labels and annotations it sets, the
// namespace, the functions it prepends, and (from the mutated files) the
// resources whose content was injected and from which file.
func Describe(m Mutation, mutated map[string][]byte) []string {
	var out []string
	kv := func(what string, mm map[string]string) {
		if len(mm) == 0 {
			return
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(mm)) {
			parts = append(parts, fmt.Sprintf("`%s: %s`", k, mm[k]))
		}
		out = append(out, fmt.Sprintf("%s on the Kptfile: %s", what, strings.Join(parts, ", ")))
	}
	kv("Labels", m.Labels)
	kv("Annotations", m.Annotations)
	if m.Namespace != "" {
		out = append(out, fmt.Sprintf("Namespace `%s` (the function `%snamespace`, `%s`, first in the pipeline)", m.Namespace, FunctionPrefix, NamespaceImage))
	}
	fns := func(what string, n int) {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s prepended to the pipeline (named `%s%s.N`)", n, what, FunctionPrefix, strings.TrimSuffix(what, "s")))
		}
	}
	fns("mutators", len(m.Pipeline.Mutators))
	fns("validators", len(m.Pipeline.Validators))
	for _, name := range slices.Sorted(maps.Keys(mutated)) {
		if !isYAML(name) || !bytes.Contains(mutated[name], []byte(InjectedFromAnnotation)) {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(mutated[name]), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue
		}
		for _, n := range nodes {
			if from, ok := n.GetAnnotations()[InjectedFromAnnotation]; ok {
				out = append(out, fmt.Sprintf("`%s` in `%s` injected from `%s`", keyOf(n), name, from))
			}
		}
	}
	out = append(out, fmt.Sprintf("Ownership: `%s: %s`, `%s: %s`", OwnerAnnotation, m.Owner.Annotation(), SpecAnnotation, m.Spec))
	return out
}
