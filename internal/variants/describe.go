package variants

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/porchbot/porchbot/internal/mdquote"
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
			parts = append(parts, mdquote.Code(k+": "+mm[k]))
		}
		out = append(out, fmt.Sprintf("%s on the Kptfile: %s", what, strings.Join(parts, ", ")))
	}
	kv("Labels", m.Labels)
	kv("Annotations", m.Annotations)
	if m.Namespace != "" {
		out = append(out, fmt.Sprintf("Namespace %s (the function %s, %s, first in the pipeline)", mdquote.Code(m.Namespace),
			mdquote.Code(FunctionPrefix+"namespace"), mdquote.Code(NamespaceImage)))
	}
	fns := func(what string, n int) {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s prepended to the pipeline (named %s)", n, what, mdquote.Code(FunctionPrefix+strings.TrimSuffix(what, "s")+".N")))
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
				out = append(out, fmt.Sprintf("%s in %s injected from %s", mdquote.Code(keyOf(n).String()), mdquote.Code(name), mdquote.Code(from)))
			}
		}
	}
	out = append(out, fmt.Sprintf("Ownership: %s, %s", mdquote.Code(OwnerAnnotation+": "+m.Owner.Annotation()), mdquote.Code(SpecAnnotation+": "+m.Spec)))
	return out
}
