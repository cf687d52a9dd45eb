package builtins

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/filters/nameref"
	"sigs.k8s.io/kustomize/api/filters/prefix"
	"sigs.k8s.io/kustomize/api/filters/suffix"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ensure-name-substring (catalog v0.2): makes sure every resource name (and
// the fields of `additionalNameFields`) contains the substring, prepending or
// appending it where it is missing, then fixes the references to renamed
// resources (kustomize's name reference rules, e.g. a Deployment's envFrom
// configMapRef) and the `config.kubernetes.io/depends-on` annotations.
// CRDs, APIServices, Namespaces and the Kptfile keep their names.
// Config: a ConfigMap with exactly one of `prepend: <s>` / `append: <s>`, or an
// EnsureNameSubstring with `substring`, `editMode` and `additionalNameFields`.

const ensureNameSubstringKind = "EnsureNameSubstring"

//go:embed kustomize_namereference.yaml
var nameReferenceYAML []byte

type nameBackReference struct {
	resid.Gvk `yaml:",inline,omitempty"`
	Referrers types.FsSlice `yaml:"fieldSpecs,omitempty"`
}

var (
	nameReferencesOnce sync.Once
	nameReferences     []nameBackReference
	nameReferencesErr  error
)

func defaultNameReferences() ([]nameBackReference, error) {
	nameReferencesOnce.Do(func() {
		var cfg struct {
			NameReference []nameBackReference `yaml:"nameReference,omitempty"`
		}
		nameReferencesErr = yaml.Unmarshal(nameReferenceYAML, &cfg)
		nameReferences = cfg.NameReference
	})
	return nameReferences, nameReferencesErr
}

var (
	nsDependsOnPattern      = regexp.MustCompile(`\A([-.\w]*)/namespaces/([-.\w]*)/([-.\w]*)/([-.\w]*)\z`)
	clusterDependsOnPattern = regexp.MustCompile(`\A([-.\w]*)/([-.\w]*)/([-.\w]*)\z`)
)

type ensureNameSubstringConfig struct {
	Substring            string            `yaml:"substring"`
	EditMode             string            `yaml:"editMode,omitempty"`
	FieldSpecs           []types.FieldSpec `yaml:"fieldSpecs,omitempty"`
	AdditionalNameFields []types.FieldSpec `yaml:"additionalNameFields,omitempty"`

	inputs map[[3]string]bool // group, kind, name

	// v0.1.x: the Kptfile is renamed like any resource, and depends-on
	// annotations are left alone
	v01 bool
}

func ensureNameSubstring(rl *framework.ResourceList) error {
	return ensureNameSubstringConfig{}.run(rl)
}

func (c ensureNameSubstringConfig) run(rl *framework.ResourceList) error {
	if err := c.load(rl.FunctionConfig); err != nil {
		return fmt.Errorf("failed to load the `functionConfig`: %w", err)
	}
	c.AdditionalNameFields = append(types.FsSlice{{Path: "metadata/name"}}, c.AdditionalNameFields...)
	m, err := newResMap(rl.Items)
	if err != nil {
		return fmt.Errorf("failed to convert items to resource map: %w", err)
	}
	if err := c.transform(m); err != nil {
		return fmt.Errorf("failed to transform name substring: %w", err)
	}
	if err := fixNameBackReferences(m); err != nil {
		return fmt.Errorf("failed to fix name back reference: %w", err)
	}
	if err := removeKustomizeAnnotations(m); err != nil {
		return fmt.Errorf("failed to remove kustomize tracking annotations: %w", err)
	}
	rl.Items = m.ToRNodeSlice()
	return nil
}

func (c *ensureNameSubstringConfig) decode(fc *yaml.RNode) error {
	meta, err := fc.GetValidatedMetadata()
	if err != nil {
		return err
	}
	switch {
	case meta.APIVersion == "v1" && meta.Kind == "ConfigMap":
		data := dataMap(fc)
		if len(data) != 1 {
			return fmt.Errorf("only 1 entry is allowed in the ConfigMap, but got: %d", len(data))
		}
		for k, v := range data {
			switch k {
			case "prepend", "append":
				c.EditMode = k
			default:
				return fmt.Errorf("unknown editMode: %v, only prepend and append are allowed", k)
			}
			c.Substring = v
		}
	case meta.APIVersion == fnConfigAPIVersion && meta.Kind == ensureNameSubstringKind:
		if err := fc.YNode().Decode(c); err != nil {
			return err
		}
	default:
		return fmt.Errorf("function config must be either %v or %v, but we got: %v",
			"/v1, Kind=ConfigMap", fnConfigAPIVersion+", Kind="+ensureNameSubstringKind,
			gvkString(meta.APIVersion, meta.Kind))
	}
	return nil
}

func (c *ensureNameSubstringConfig) load(fc *yaml.RNode) error {
	if !isEmptyConfig(fc) {
		if err := c.decode(fc); err != nil {
			return err
		}
	}
	// defaulting and validation
	if c.EditMode == "" {
		c.EditMode = "prepend"
	}
	if c.AdditionalNameFields == nil && c.FieldSpecs != nil {
		c.AdditionalNameFields = c.FieldSpecs
		c.FieldSpecs = nil
	}
	if len(c.Substring) == 0 {
		return fmt.Errorf("substring must not be empty")
	}
	if c.AdditionalNameFields != nil && c.FieldSpecs != nil {
		return fmt.Errorf("`fieldSpecs` has been deprecated, please rename it to `additionalNameFields`")
	}
	return nil
}

// gvkString formats like k8s.io/apimachinery schema.GroupVersionKind.String().
func gvkString(apiVersion, kind string) string {
	g, v, _ := parseGroupVersion(apiVersion)
	return g + "/" + v + ", Kind=" + kind
}

var nameSubstringSkips = []resid.Gvk{
	{Kind: "CustomResourceDefinition"},
	{Group: "apiregistration.k8s.io", Kind: "APIService"},
	{Kind: "Namespace"},
	{Group: "kpt.dev", Kind: "Kptfile"},
}

func (c *ensureNameSubstringConfig) transform(m resmap.ResMap) error {
	c.inputs = map[[3]string]bool{}
	for _, r := range m.Resources() {
		g := r.GetGvk()
		c.inputs[[3]string{g.Group, g.Kind, r.GetName()}] = true
	}
	for _, r := range m.Resources() {
		id := r.OrgId()
		skip := false
		for i := range nameSubstringSkips {
			if c.v01 && nameSubstringSkips[i].Kind == "Kptfile" {
				continue
			}
			if id.IsSelected(&nameSubstringSkips[i]) {
				skip = true
			}
		}
		if skip {
			continue
		}
		for _, fs := range c.AdditionalNameFields {
			if !id.IsSelected(&fs.Gvk) {
				continue
			}
			has, err := resourceContainsSubstring(r, c.Substring, fs)
			if err != nil {
				return err
			}
			if has {
				continue
			}
			if fs.Path == "metadata/name" {
				r.StorePreviousId()
				if c.EditMode == "append" {
					r.AddNameSuffix(c.Substring)
				} else {
					r.AddNamePrefix(c.Substring)
				}
			}
			var f kio.Filter = prefix.Filter{Prefix: c.Substring, FieldSpec: fs}
			if c.EditMode == "append" {
				f = suffix.Filter{Suffix: c.Substring, FieldSpec: fs}
			}
			if err := r.ApplyFilter(f); err != nil {
				return err
			}
			if c.v01 {
				continue
			}
			if err := c.updateDependsOn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func resourceContainsSubstring(r *resource.Resource, substring string, fs types.FieldSpec) (bool, error) {
	if fs.Path == "metadata/name" {
		return strings.Contains(r.GetName(), substring), nil
	}
	mp, err := r.Map()
	if err != nil {
		return false, fmt.Errorf("unable to convert resource for %v: %w", r.OrgId().String(), err)
	}
	rn, err := yaml.FromMap(mp)
	if err != nil {
		return false, fmt.Errorf("unable to check if the substring exsits in %v: %w", r.OrgId().String(), err)
	}
	val, err := rn.Pipe(yaml.Lookup(strings.Split(fs.Path, "/")...))
	if err != nil {
		return false, fmt.Errorf("unable to lookup path %v in %v: %w", fs.Path, r.OrgId().String(), err)
	}
	s, err := val.String()
	if err != nil {
		return false, fmt.Errorf("unable to check if the substring exsits in %v: %w", r.OrgId().String(), err)
	}
	return strings.Contains(s, substring), nil
}

func (c *ensureNameSubstringConfig) updateDependsOn(r *resource.Resource) error {
	annos := r.GetAnnotations()
	dependsOn, ok := annos[dependsOnAnnotation]
	if !ok {
		return nil
	}
	var gi, ki, ni int
	switch {
	case nsDependsOnPattern.MatchString(dependsOn):
		gi, ki, ni = 0, 3, 4
	case clusterDependsOnPattern.MatchString(dependsOn):
		gi, ki, ni = 0, 1, 2
	default:
		return nil
	}
	seg := strings.Split(dependsOn, "/")
	if !c.inputs[[3]string{seg[gi], seg[ki], seg[ni]}] {
		return nil
	}
	if c.EditMode == "append" {
		seg[ni] += c.Substring
	} else {
		seg[ni] = c.Substring + seg[ni]
	}
	annos[dependsOnAnnotation] = strings.Join(seg, "/")
	return r.SetAnnotations(annos)
}

// fixNameBackReferences updates name references to renamed resources
// (kustomize's name reference transformer with its default configuration).
func fixNameBackReferences(m resmap.ResMap) error {
	refs, err := defaultNameReferences()
	if err != nil {
		return err
	}
	type job struct {
		r       *resource.Resource
		filters []nameref.Filter
	}
	var jobs []*job
	byRes := map[*resource.Resource]*job{}
	for _, backRef := range refs {
		for _, referrer := range backRef.Referrers {
			for _, r := range m.Resources() {
				if !r.OrgId().IsSelected(&referrer.Gvk) {
					continue
				}
				j, ok := byRes[r]
				if !ok {
					j = &job{r: r}
					byRes[r] = j
					jobs = append(jobs, j)
				}
				j.filters = append(j.filters, nameref.Filter{NameFieldToUpdate: referrer, ReferralTarget: backRef.Gvk})
			}
		}
	}
	for _, j := range jobs {
		candidates, err := m.SubsetThatCouldBeReferencedByResource(j.r)
		if err != nil {
			return err
		}
		for _, f := range j.filters {
			f.Referrer = j.r
			f.ReferralCandidates = candidates
			if err := j.r.ApplyFilter(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// kptAnnotations are kept when kustomize's build annotations are removed, so
// that kpt can still write the resources back to their files.
var kptAnnotations = map[string]bool{
	kioutil.PathAnnotation:                                   true,
	kioutil.IndexAnnotation:                                  true,
	kioutil.SeqIndentAnnotation:                              true,
	kioutil.IdAnnotation:                                     true,
	kioutil.InternalAnnotationsMigrationResourceIDAnnotation: true,
	kioutil.LegacyPathAnnotation:                             true, //nolint:staticcheck
	kioutil.LegacyIndexAnnotation:                            true, //nolint:staticcheck
	kioutil.LegacyIdAnnotation:                               true, //nolint:staticcheck
}

func removeKustomizeAnnotations(m resmap.ResMap) error {
	for _, r := range m.Resources() {
		annos := r.GetAnnotations()
		if len(annos) == 0 {
			continue
		}
		for _, a := range resource.BuildAnnotations {
			if !kptAnnotations[a] {
				delete(annos, a)
			}
		}
		if err := r.SetAnnotations(annos); err != nil {
			return err
		}
	}
	return nil
}
