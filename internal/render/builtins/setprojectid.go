package builtins

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kptfilev1 "github.com/porchbot/porchbot/internal/render/builtins/sdkapi/kptfile/v1"
)

// set-project-id (catalog v0.1.0–v0.2.0, kyaml v0.11's framework and the
// functions SDK of August 2021): the ConfigMap's project-id becomes
//
//   - the project-id setter of every Kptfile's first apply-setters mutator
//     (its configMap, or the data of the file its configPath names) where
//     that has none, or of an apply-setters mutator appended to a pipeline
//     without one (apply-setters:v0.1 from v0.1.0, :v0.2 from v0.2.0); a
//     Kptfile it changes is written again from the SDK's types, which it
//     is decoded into strictly (a field they lack fails the function);
//   - the cnrm.cloud.google.com/project-id annotation of every Config
//     Connector resource that has none (apiVersion *.cnrm.cloud.google.com,
//     the core group's aside).
type setProjectID struct {
	setters string // the apply-setters image it appends
}

const projectIDAnnotation = "cnrm.cloud.google.com/project-id"

var kccAPIVersion = regexp.MustCompile(`^([\w]+)\.cnrm\.cloud\.google\.com\/[\w]+$`)

func (p setProjectID) process(rl *framework.ResourceList) error {
	id := rl.FunctionConfig.GetDataMap()["project-id"]
	err := p.setSetters(rl.Items, id)
	if err != nil {
		err = fmt.Errorf("failed to set project-id setter: %w", err)
	} else {
		setProjectIDAnnotations(rl.Items, id)
	}
	if err != nil {
		// the framework prints the error, then the release's main again
		return Failure{err.Error() + err.Error() + "\n"}
	}
	return nil
}

func (p setProjectID) setSetters(items []*yaml.RNode, id string) error {
	var kptfiles []*kptfilev1.KptFile
	for _, it := range items {
		if it.GetKind() != "Kptfile" {
			continue
		}
		s, err := it.String()
		if err != nil {
			return fmt.Errorf("faild to find Kptfile: unable to read Kptfile: %w", err)
		}
		kf := &kptfilev1.KptFile{}
		d := yaml.NewDecoder(strings.NewReader(s))
		d.KnownFields(true)
		if err := d.Decode(&kf); err != nil {
			return fmt.Errorf("faild to find Kptfile: failed to read Kptfile: invalid 'v1' Kptfile: %w", err)
		}
		kptfiles = append(kptfiles, kf)
	}
	if len(kptfiles) == 0 {
		return fmt.Errorf("faild to find Kptfile: unable to find Kptfile, please include --include-meta-resources flag if a Kptfile is present")
	}
	for _, kf := range kptfiles {
		if err := p.setKptfileSetter(items, kf, id); err != nil {
			return fmt.Errorf("error updating Kptfile: %w", err)
		}
	}
	return nil
}

// setKptfileSetter sets the setter of one Kptfile, as the release does.
func (p setProjectID) setKptfileSetter(items []*yaml.RNode, kf *kptfilev1.KptFile, id string) error {
	if kf.Pipeline == nil {
		kf.Pipeline = &kptfilev1.Pipeline{}
	}
	for _, fn := range kf.Pipeline.Mutators {
		if !strings.Contains(fn.Image, "apply-setters") {
			continue
		}
		switch {
		case fn.ConfigMap != nil:
			if fn.ConfigMap["project-id"] == "" {
				fn.ConfigMap["project-id"] = id
			}
			return replaceKptfile(items, kf)
		case fn.ConfigPath != "":
			cfg := itemAtPath(items, fn.ConfigPath)
			if cfg == nil {
				return fmt.Errorf("failed to find setter file: file %s doesn't exist, please ensure the file specified in \"configPath\" exists and retry", fn.ConfigPath)
			}
			data := cfg.GetDataMap()
			if data["project-id"] == "" {
				data["project-id"] = id
				cfg.SetDataMap(data)
			}
			return nil
		default:
			return fmt.Errorf("unable to find `ConfigMap` or `configPath` as the `functionConfig` for apply-setters")
		}
	}
	kf.Pipeline.Mutators = append(kf.Pipeline.Mutators,
		kptfilev1.Function{Image: p.setters, ConfigMap: map[string]string{"project-id": id}})
	return replaceKptfile(items, kf)
}

// replaceKptfile puts kf, written from the SDK's types, in the place of the
// item at its path.
func replaceKptfile(items []*yaml.RNode, kf *kptfilev1.KptFile) error {
	b, err := yaml.Marshal(kf)
	if err != nil {
		return fmt.Errorf("failed to update Kptfile file: failed to marshal updated Kptfile: %w", err)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return fmt.Errorf("failed to update Kptfile file: failed to parse updated Kptfile: %w", err)
	}
	path := kf.Annotations[kioutil.LegacyPathAnnotation] //nolint:staticcheck // the release's kyaml named this one
	for i := range items {
		if items[i].GetAnnotations()[kioutil.LegacyPathAnnotation] == path { //nolint:staticcheck
			items[i] = n
			return nil
		}
	}
	return nil
}

func setProjectIDAnnotations(items []*yaml.RNode, id string) {
	for _, it := range items {
		m := kccAPIVersion.FindStringSubmatch(it.GetApiVersion())
		if len(m) != 2 || m[1] == "core" {
			continue
		}
		annos := it.GetAnnotations()
		if _, ok := annos[projectIDAnnotation]; ok {
			continue
		}
		annos[projectIDAnnotation] = id
		_ = it.SetAnnotations(annos)
	}
}
