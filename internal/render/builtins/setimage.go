package builtins

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/api/filters/imagetag"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filtersutil"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// set-image (catalog v0.1): updates the `image` of the containers of Pods
// (spec.containers) and of Deployments, StatefulSets, ReplicaSets, DaemonSets
// (spec.template.spec.containers) whose image name matches `name`, to
// `newName`, `newTag` or `digest`. Like the catalog function (which looks for a
// misspelled "iniContainers" field), init containers are not updated by the
// default paths; they can be reached with `additionalImageFields` in a
// SetImage config (kustomize's image tag filter on the given field specs).

const setImageKind = "SetImage"

type setImageImage struct {
	Name    string `yaml:"name,omitempty"`
	NewName string `yaml:"newName,omitempty"`
	NewTag  string `yaml:"newTag,omitempty"`
	Digest  string `yaml:"digest,omitempty"`
}

type setImageConfig struct {
	Image                 setImageImage     `yaml:"image,omitempty"`
	Data                  map[string]string `yaml:"data,omitempty"`
	AdditionalImageFields types.FsSlice     `yaml:"additionalImageFields,omitempty"`

	count int
	// nameRE is imageRegexp(Image.Name), once compiled (nil: not compiled
	// yet; badName: it does not compile)
	nameRE  *regexp.Regexp
	badName bool
}

func setImage(rl *framework.ResourceList) error {
	fc := rl.FunctionConfig
	cfg := &setImageConfig{}
	typed := false
	switch {
	case isEmptyConfig(fc):
		rl.Results = append(rl.Results, result("`FunctionConfig` is not given", framework.Info))
	case isGVK(fc, "", "v1", "ConfigMap"):
		cfg.Data = stringMapAt(fc, "data")
	case isGVK(fc, fnConfigGroup, fnConfigVersion, setImageKind):
		if err := fc.YNode().Decode(cfg); err != nil {
			rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, fc))
			return errFunctionFailure
		}
		typed = true
	default:
		rl.Results = append(rl.Results, objectResult(fmt.Sprintf("unknown FunctionConfig `%v`, expect %v",
			getString(fc, yaml.KindField), setImageKind), framework.Error, fc))
		return errFunctionFailure
	}

	keys := make([]string, 0, len(cfg.Data))
	for k := range cfg.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := cfg.Data[k]
		switch k {
		case "name":
			cfg.Image.Name = v
		case "newName":
			cfg.Image.NewName = v
		case "newTag":
			cfg.Image.NewTag = v
		case "digest":
			cfg.Image.Digest = v
		default:
			rl.Results = append(rl.Results, result(fmt.Sprintf("ConfigMap has wrong field name %v", k), framework.Error))
			return errFunctionFailure
		}
	}
	if cfg.Image.Name == "" {
		rl.Results = append(rl.Results, result("must specify `name`", framework.Error))
		return errFunctionFailure
	}
	if cfg.Image.NewName == "" && cfg.Image.NewTag == "" && cfg.Image.Digest == "" {
		rl.Results = append(rl.Results, result("must specify one of `newName`, `newTag`, or `digest`", framework.Error))
		return errFunctionFailure
	}

	for _, o := range rl.Items {
		if o.YNode().Kind != yaml.MappingNode {
			continue
		}
		var pod *yaml.Node
		switch getString(o, yaml.KindField) {
		case "Pod":
			pod = nestedMap(o.YNode(), "spec")
		case "Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "PodTemplate":
			pod = nestedMap(o.YNode(), "spec", "template", "spec")
		default:
			continue
		}
		if err := cfg.updateContainers(pod); err != nil {
			rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, o))
		}
	}

	if typed && cfg.AdditionalImageFields != nil {
		img := types.Image{}
		if m := nestedMap(fc.YNode(), "image"); m != nil {
			_ = m.Decode(&img)
		}
		for i, o := range rl.Items {
			objRN := reparse(o)
			f := imagetag.Filter{ImageTag: img, FsSlice: cfg.AdditionalImageFields}
			f.WithMutationTracker(func(_, _, _ string, _ *yaml.RNode) { cfg.count++ })
			if err := filtersutil.ApplyToJSON(f, objRN); err != nil {
				rl.Results = append(rl.Results, objectResult(err.Error(), framework.Error, o))
			}
			rl.Items[i] = reparse(objRN)
		}
	}

	rl.Results = append(rl.Results, result(fmt.Sprintf("summary: updated a total of %v image(s)", cfg.count), framework.Info))
	return nil
}

func (c *setImageConfig) updateContainers(pod *yaml.Node) error {
	if pod == nil {
		return nil
	}
	// "iniContainers": the catalog function's field name (sic).
	containers := append(nestedSlice(pod, "iniContainers"), nestedSlice(pod, "containers")...)
	for _, ctr := range containers {
		old, _, err := nestedString(yaml.NewRNode(ctr), "image")
		if err != nil {
			return fmt.Errorf("unable to read image: %w", err)
		}
		if !c.nameMatches(old) {
			continue
		}
		newImage := newImageName(old, c.Image)
		if old == newImage {
			continue
		}
		if err := setNestedString(ctr, newImage, "image"); err != nil {
			return err
		}
		c.count++
	}
	return nil
}

// nameMatches reports whether image s is the configured image name with an
// optional tag and sha256 digest; the name is a regular expression, as in
// kustomize (compiled once per run).
func (c *setImageConfig) nameMatches(s string) bool {
	if c.nameRE == nil && !c.badName {
		re, err := imageRegexp(c.Image.Name)
		c.nameRE, c.badName = re, err != nil
	}
	return !c.badName && c.nameRE.MatchString(s)
}

func imageRegexp(t string) (*regexp.Regexp, error) {
	return regexp.Compile("^" + t + "(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$")
}

// splitImage splits an image reference into name, ":tag" and "@digest"
// (separators kept), ignoring a registry host's port.
func splitImage(image string) (name, tag, digest string) {
	search := image
	slash := strings.Index(image, "/")
	if slash > 0 {
		search = image[slash:]
	} else {
		slash = 0
	}
	id := strings.Index(search, "@")
	ic := strings.Index(search, ":")
	switch {
	case ic < 0 && id < 0:
		return image, "", ""
	case id >= 0 && (id < ic || ic < 0):
		id += slash
		return image[:id], "", image[id:]
	case id >= 0 && ic >= 0:
		id += slash
		ic += slash
		return image[:ic], image[ic:id], image[id:]
	}
	ic += slash
	return image[:ic], image[ic:], ""
}

func newImageName(old string, img setImageImage) string {
	name, tag, digest := splitImage(old)
	if img.NewName != "" {
		name = img.NewName
	}
	if img.NewTag != "" {
		tag = ":" + img.NewTag
	}
	if img.Digest != "" {
		tag = "@" + img.Digest
	}
	if tag == "" {
		return name + digest
	}
	return name + tag
}
