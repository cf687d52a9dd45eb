package publish

import (
	"bytes"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/treediff"
)

// ResourceKey identifies a KRM resource in a package: apiVersion, kind,
// namespace ("" for none) and name.
type ResourceKey struct {
	APIVersion, Kind, Namespace, Name string
}

// String is "apiVersion/kind namespace/name" ("apiVersion/kind name"
// without a namespace), e.g. "apps/v1/Deployment default/web".
func (k ResourceKey) String() string {
	id := k.Name
	if k.Namespace != "" {
		id = k.Namespace + "/" + k.Name
	}
	return k.APIVersion + "/" + k.Kind + " " + id
}

func (k ResourceKey) less(o ResourceKey) bool {
	a := [4]string{k.APIVersion, k.Kind, k.Namespace, k.Name}
	b := [4]string{o.APIVersion, o.Kind, o.Namespace, o.Name}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// ResourcesDiff is the change of a package's resources between two trees.
type ResourcesDiff struct {
	Added, Changed, Removed []ResourceKey
	// Unparsed are YAML files of the new tree that are not valid KRM
	// (reported, not compared).
	Unparsed []string
}

// Empty reports whether no resource changed.
func (d ResourcesDiff) Empty() bool {
	return len(d.Added)+len(d.Changed)+len(d.Removed) == 0
}

// DiffResources compares the KRM resources of two package trees (files
// keyed by path, as gitstore.Cache.ReadTree returns them; old may be nil
// for a first revision; cur is the new tree). Every .yaml/.yml file is read with kyaml; Kptfiles
// are package metadata, not resources, and are left out (they show among
// the changed files). A resource changed when its content differs as data
// (comments and formatting do not count).
func DiffResources(old, cur map[string][]byte) ResourcesDiff {
	before, _ := resDiffParse(old)
	after, unparsed := resDiffParse(cur)
	var d ResourcesDiff
	d.Added, d.Changed, d.Removed = treediff.Keys(before, after, func(a, b any) bool { return reflect.DeepEqual(a, b) })
	for _, s := range [][]ResourceKey{d.Added, d.Changed, d.Removed} {
		sort.Slice(s, func(i, j int) bool { return s[i].less(s[j]) })
	}
	d.Unparsed = unparsed
	return d
}

// resDiffParse reads the resources of a package's YAML files,
// keyed by identity, as plain data.
func resDiffParse(files map[string][]byte) (map[ResourceKey]any, []string) {
	out := map[ResourceKey]any{}
	var unparsed []string
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if path.Base(name) == packages.KptfileName {
			continue
		}
		ext := strings.ToLower(path.Ext(name))
		if ext != ".yaml" && ext != ".yml" {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(files[name]), OmitReaderAnnotations: true}).Read()
		if err != nil {
			unparsed = append(unparsed, name)
			continue
		}
		for _, n := range nodes {
			k, data, err := resDiffData(n)
			if err != nil {
				unparsed = append(unparsed, name)
				break
			}
			out[k] = data
		}
	}
	return out, unparsed
}

// resDiffData is a node's identity and its content as plain data.
func resDiffData(n *yaml.RNode) (ResourceKey, any, error) {
	meta, err := n.GetMeta()
	if err != nil {
		return ResourceKey{}, nil, err
	}
	if meta.APIVersion == "" || meta.Kind == "" {
		return ResourceKey{}, nil, fmt.Errorf("not a KRM resource")
	}
	k := ResourceKey{APIVersion: meta.APIVersion, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}
	var data any
	if err := n.YNode().Decode(&data); err != nil {
		return ResourceKey{}, nil, err
	}
	return k, data, nil
}
