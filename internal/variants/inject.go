package variants

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// Injection, as Porch's PackageVariant does it: a resource of the package
// annotated InjectionAnnotation gets its spec and data replaced by those of
// the resource of the same group, kind and name found in the injector
// files. "true" and "required" must find one; "optional" may not.
const (
	InjectionAnnotation = "kpt.dev/config-injection"
	// InjectedFromAnnotation records the injector file a resource's
	// content came from.
	InjectedFromAnnotation = "porchbot.dev/injected-from"
)

// injectKey identifies a resource for injection: API group, kind, name.
type injectKey struct{ group, kind, name string }

func keyOf(n *yaml.RNode) injectKey {
	group, _, _ := strings.Cut(n.GetApiVersion(), "/")
	if !strings.Contains(n.GetApiVersion(), "/") {
		group = "" // the core group: "v1"
	}
	return injectKey{group: group, kind: n.GetKind(), name: n.GetName()}
}

func (k injectKey) String() string {
	if k.group == "" {
		return k.kind + " " + k.name
	}
	return k.kind + "." + k.group + " " + k.name
}

type injectSource struct {
	node *yaml.RNode
	file string
}

// inject performs the injections into files in place (only the files that
// hold an injected resource are rewritten).
func inject(files map[string][]byte, injectors map[string][]byte) error {
	sources, err := injectSources(injectors)
	if err != nil {
		return err
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if path.Base(name) == kptfile.FileName || !isYAML(name) || !bytes.Contains(files[name], []byte(InjectionAnnotation)) {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(files[name]), PreserveSeqIndent: true}).Read()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		changed := false
		for _, n := range nodes {
			mode := n.GetAnnotations()[InjectionAnnotation]
			if mode != "true" && mode != "required" && mode != "optional" {
				continue
			}
			src, ok := sources[keyOf(n)]
			if !ok {
				if mode != "optional" {
					missing = append(missing, fmt.Sprintf("%s in %s", keyOf(n), name))
				}
				continue
			}
			if err := injectInto(n, src); err != nil {
				return fmt.Errorf("%s: %s: %w", name, keyOf(n), err)
			}
			changed = true
		}
		if !changed {
			continue
		}
		var buf bytes.Buffer
		if err := (kio.ByteWriter{Writer: &buf}).Write(nodes); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files[name] = buf.Bytes()
	}
	if len(missing) > 0 {
		return fmt.Errorf("required injection found no resource of the same kind and name in the injector files (%s): %s",
			strings.Join(slices.Sorted(maps.Keys(injectors)), ", "), strings.Join(missing, "; "))
	}
	return nil
}

// injectInto replaces n's spec and data by src's (those src has).
func injectInto(n *yaml.RNode, src injectSource) error {
	copied := false
	for _, field := range []string{"spec", "data"} {
		v := src.node.Field(field)
		if v == nil {
			continue
		}
		if err := n.PipeE(yaml.SetField(field, yaml.NewRNode(yaml.CopyYNode(v.Value.YNode())))); err != nil {
			return err
		}
		copied = true
	}
	if !copied {
		return errors.New("the injector resource has neither spec nor data")
	}
	return n.PipeE(yaml.LookupCreate(yaml.MappingNode, yaml.MetadataField, yaml.AnnotationsField),
		yaml.SetField(InjectedFromAnnotation, yaml.NewScalarRNode(src.file)))
}

// injectSources indexes the resources of the injector files; a resource
// found twice is an error (which one to inject would be a guess).
func injectSources(injectors map[string][]byte) (map[injectKey]injectSource, error) {
	out := map[injectKey]injectSource{}
	for _, name := range slices.Sorted(maps.Keys(injectors)) {
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(injectors[name]), OmitReaderAnnotations: true}).Read()
		if err != nil {
			return nil, fmt.Errorf("injector %s: %w", name, err)
		}
		for _, n := range nodes {
			k := keyOf(n)
			if prev, dup := out[k]; dup {
				return nil, fmt.Errorf("injector files: %s is in both %s and %s", k, prev.file, name)
			}
			out[k] = injectSource{node: n, file: name}
		}
	}
	return out, nil
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}
