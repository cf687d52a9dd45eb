package builtins

import (
	"path/filepath"

	fixv1 "github.com/porchbot/porchbot/internal/render/builtins/sdkapi/fixkptfile/v1"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// A kpt v0.x function config names its function in an annotation
// (config.kubernetes.io/function, else config.k8s.io/function), in
// metadata.configFn, or as an image in config.kubernetes.io/container.
// fixFunctionSpec is what the release decodes the first two into (kyaml
// v0.10's runtimeutil.FunctionSpec, leniently): a value it cannot decode
// makes the release print the error and go on.
type fixFunctionSpec struct {
	DeferFailure  bool             `yaml:"deferFailure,omitempty"`
	Container     fixContainerSpec `yaml:"container,omitempty"`
	Starlark      fixStarlarkSpec  `yaml:"starlark,omitempty"`
	Exec          fixExecSpec      `yaml:"exec,omitempty"`
	StorageMounts []fixMount       `yaml:"mounts,omitempty"`
}

type fixContainerSpec struct {
	Image         string     `yaml:"image,omitempty"`
	Network       bool       `yaml:"network,omitempty"`
	StorageMounts []fixMount `yaml:"mounts,omitempty"`
	Env           []string   `yaml:"envs,omitempty"`
}

type fixStarlarkSpec struct {
	Name string `yaml:"name,omitempty"`
	Path string `yaml:"path,omitempty"`
	URL  string `yaml:"url,omitempty"`
}

type fixExecSpec struct {
	Path string `yaml:"path,omitempty"`
}

type fixMount struct {
	MountType     string `yaml:"type,omitempty"`
	Src           string `yaml:"src,omitempty"`
	DstPath       string `yaml:"dst,omitempty"`
	ReadWriteMode bool   `yaml:"rw,omitempty"`
}

// fixFunctionImage is the image of the function a function config names;
// ok is false for an item that is no function config.
func fixFunctionImage(it *yaml.RNode, annos map[string]string) (image string, ok bool, err error) {
	var spec string
	switch {
	case annos[fnAnnotation] != "":
		spec = annos[fnAnnotation]
	case annos[legacyFnAnnotation] != "":
		spec = annos[legacyFnAnnotation]
	default:
		fn, lerr := it.Pipe(yaml.Lookup("metadata", "configFn"))
		if lerr != nil || yaml.IsMissingOrNull(fn) {
			if c := annos["config.kubernetes.io/container"]; c != "" {
				return c, true, nil
			}
			return "", false, nil
		}
		if spec, err = fn.String(); err != nil {
			return "", false, err
		}
	}
	var fs fixFunctionSpec
	if err := yaml.Unmarshal([]byte(spec), &fs); err != nil {
		return "", false, fixRefusal("%s names its function in a way the release cannot decode (%v); the release prints "+
			"that on stderr and moves it anyway, and porchbot does not print a passing function's stderr", it.GetName(), err)
	}
	return fs.Container.Image, true, nil
}

// moveFunctionConfigs finds the function configs among pkg's files: each
// loses its function annotations and moves to the package's top directory
// (v0.2.1: to a file named after it; v0.2.0: keeping its file's name), and
// becomes a mutator with that file as its configPath.
func (r *fixRun) moveFunctionConfigs(pkg string) ([]fixv1.Function, error) {
	var fns []fixv1.Function
	for _, it := range r.items {
		// every item has its meta: grouping read it
		meta, _ := it.GetMeta()
		path := meta.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release's kyaml named this one
		if !r.pkgs.filesOf[pkg][path] {
			continue
		}
		image, ok, err := fixFunctionImage(it, meta.Annotations)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if meta.Annotations == nil {
			return nil, fixRefusal("%s names its function in metadata.configFn and has no annotations; the release "+
				"panics setting its path", it.GetName())
		}
		file := filepath.Base(path)
		if r.release.v021 {
			file = it.GetName() + ".yaml"
		}
		fns = append(fns, fixv1.Function{Image: image, ConfigPath: file})
		meta.Annotations[kioutil.LegacyPathAnnotation] = filepath.Join(pkg, file) //nolint:staticcheck
		delete(meta.Annotations, fnAnnotation)
		delete(meta.Annotations, legacyFnAnnotation)
		if err := it.SetAnnotations(meta.Annotations); err != nil {
			return nil, err
		}
	}
	return fns, nil
}
