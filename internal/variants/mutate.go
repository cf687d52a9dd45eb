package variants

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// Names of what a variant adds to a downstream pipeline. Every function a
// variant prepends is named FunctionPrefix + ...; applying the variant again
// first removes them, so the pipeline of a package a variant updated ten
// times has the variant's functions once (as Porch's PackageVariant names
// its functions "PackageVariant.<name>...").
const (
	FunctionPrefix = "porchbot-variant."
	// NamespaceImage is the function that gives the downstream resources
	// the variant's namespace, kept in the pipeline so every render (the
	// bot's, and `kpt fn render` on a laptop) applies it to resources the
	// upstream adds later too.
	NamespaceImage = "gcr.io/kpt-fn/set-namespace:v0.4.1"
)

// Mutation is what one variants entry does to one target's downstream
// package.
type Mutation struct {
	Owner       Ownership
	Spec        string // SpecDigest
	Labels      map[string]string
	Annotations map[string]string
	Namespace   string // rendered for the target ("": left alone)
	Pipeline    kptfile.Pipeline
	// Injectors are the target repository's files the entry lists, by
	// path (the bot reads them at the target's deployment head).
	Injectors map[string][]byte
}

// MutationFor is entry v of repository upstream for target repo.
func MutationFor(upstream string, v config.Variant, repo config.Repository, injectors map[string][]byte) (Mutation, error) {
	ns, err := v.DownstreamNamespace(repo)
	if err != nil {
		return Mutation{}, err
	}
	spec, err := SpecDigest(v, repo)
	if err != nil {
		return Mutation{}, err
	}
	return Mutation{Owner: OwnershipOf(upstream, v), Spec: spec, Labels: v.Labels, Annotations: v.Annotations,
		Namespace: ns, Pipeline: v.Pipeline, Injectors: injectors}, nil
}

// Apply applies m to a downstream package (files by path relative to the
// package, the Kptfile at "Kptfile") and returns the new files; files
// are not modified. Applying twice gives what applying once gives. An
// injection marked required (or "true") that finds no match is an error
// naming the resource.
func Apply(files map[string][]byte, m Mutation) (map[string][]byte, error) {
	out, err := editKptfile(files, func(kf *kptfile.File) error { return applyKptfile(kf, m) })
	if err != nil {
		return nil, err
	}
	if err := inject(out, m.Injectors); err != nil {
		return nil, fmt.Errorf("variant: %w", err)
	}
	return out, nil
}

// editKptfile returns files with the package's Kptfile edited by edit
// (files are not modified).
func editKptfile(files map[string][]byte, edit func(kf *kptfile.File) error) (map[string][]byte, error) {
	data, ok := files[kptfile.FileName]
	if !ok {
		return nil, fmt.Errorf("variant: the package has no %s", kptfile.FileName)
	}
	kf, err := kptfile.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("variant: %w", err)
	}
	if err := edit(kf); err != nil {
		return nil, fmt.Errorf("variant: %w", err)
	}
	out := maps.Clone(files)
	if out[kptfile.FileName], err = kf.Bytes(); err != nil {
		return nil, fmt.Errorf("variant: %w", err)
	}
	return out, nil
}

func applyKptfile(kf *kptfile.File, m Mutation) error {
	if err := kf.SetAnnotation(OwnerAnnotation, m.Owner.Annotation()); err != nil {
		return err
	}
	if err := kf.SetAnnotation(SpecAnnotation, m.Spec); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		if err := kf.SetLabel(k, m.Labels[k]); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Annotations)) {
		if err := kf.SetAnnotation(k, m.Annotations[k]); err != nil {
			return err
		}
	}
	if err := kf.RemoveFunctionsNamed(FunctionPrefix); err != nil {
		return err
	}
	if err := kf.PrependPipeline(variantPipeline(m)); err != nil {
		return err
	}
	return appendNamespace(kf, m.Namespace)
}

// appendNamespace puts the variant's namespace function last among the
// mutators: it runs after the package's own functions, so an upstream
// pipeline that sets its own namespace does not undo the variant's.
func appendNamespace(kf *kptfile.File, ns string) error {
	if ns == "" {
		return nil
	}
	fn := kptfile.Function{Image: NamespaceImage, Name: FunctionPrefix + "namespace", ConfigMap: map[string]string{"namespace": ns}}
	var n kyaml.Node
	if err := n.Encode(fn); err != nil {
		return err
	}
	return kf.Edit(func(doc *kyaml.RNode) error {
		seq, err := doc.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "pipeline", "mutators"))
		if err != nil {
			return err
		}
		return seq.PipeE(kyaml.Append(&n))
	})
}

// variantPipeline is the entry's functions, named as the variant's: its
// mutators (the namespace function is appended last, appendNamespace) and
// its validators.
func variantPipeline(m Mutation) kptfile.Pipeline {
	var p kptfile.Pipeline
	name := func(kind string, i int, fn kptfile.Function) kptfile.Function {
		fn.Name = FunctionPrefix + kind + "." + strconv.Itoa(i)
		return fn
	}
	for i, fn := range m.Pipeline.Mutators {
		p.Mutators = append(p.Mutators, name("mutator", i, fn))
	}
	for i, fn := range m.Pipeline.Validators {
		p.Validators = append(p.Validators, name("validator", i, fn))
	}
	return p
}
