package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// KptfileName is the name of the file that makes a directory a kpt package.
const KptfileName = "Kptfile"

const (
	kptfileGroup      = "kpt.dev"
	kptfileVersion    = "v1"
	kptfileKind       = "Kptfile"
	kptfileAPIVersion = kptfileGroup + "/" + kptfileVersion
)

// Kptfile is a kpt.dev/v1 Kptfile with the fields kpt v1.0.0-beta.56 knows.
// Decoding is strict, as in kpt: an unknown field anywhere is an error.
type Kptfile struct {
	yaml.ResourceMeta `yaml:",inline" json:",inline"`

	Upstream     *Upstream     `yaml:"upstream,omitempty" json:"upstream,omitempty"`
	UpstreamLock *UpstreamLock `yaml:"upstreamLock,omitempty" json:"upstreamLock,omitempty"`
	Info         *PackageInfo  `yaml:"info,omitempty" json:"info,omitempty"`
	Pipeline     *Pipeline     `yaml:"pipeline,omitempty" json:"pipeline,omitempty"`
	Inventory    *Inventory    `yaml:"inventory,omitempty" json:"inventory,omitempty"`
	Status       *Status       `yaml:"status,omitempty" json:"status,omitempty"`
}

// Upstream is the Kptfile's user-specified upstream locator.
type Upstream struct {
	Type           string `yaml:"type,omitempty" json:"type,omitempty"`
	Git            *Git   `yaml:"git,omitempty" json:"git,omitempty"`
	UpdateStrategy string `yaml:"updateStrategy,omitempty" json:"updateStrategy,omitempty"`
}

// Git locates a package in a git repository.
type Git struct {
	Repo      string `yaml:"repo,omitempty" json:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty" json:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty" json:"ref,omitempty"`
}

// UpstreamLock is the resolved upstream of the last fetch.
type UpstreamLock struct {
	Type string   `yaml:"type,omitempty" json:"type,omitempty"`
	Git  *GitLock `yaml:"git,omitempty" json:"git,omitempty"`
}

// GitLock is a resolved git locator.
type GitLock struct {
	Repo      string `yaml:"repo,omitempty" json:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty" json:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty" json:"ref,omitempty"`
	Commit    string `yaml:"commit,omitempty" json:"commit,omitempty"`
}

// PackageInfo is the Kptfile's info section.
type PackageInfo struct {
	Site           string          `yaml:"site,omitempty" json:"site,omitempty"`
	Emails         []string        `yaml:"emails,omitempty" json:"emails,omitempty"`
	License        string          `yaml:"license,omitempty" json:"license,omitempty"`
	LicenseFile    string          `yaml:"licenseFile,omitempty" json:"licenseFile,omitempty"`
	Description    string          `yaml:"description,omitempty" json:"description,omitempty"`
	Keywords       []string        `yaml:"keywords,omitempty" json:"keywords,omitempty"`
	Man            string          `yaml:"man,omitempty" json:"man,omitempty"`
	ReadinessGates []ReadinessGate `yaml:"readinessGates,omitempty" json:"readinessGates,omitempty"`
}

// ReadinessGate names a condition that must be true before a package is ready.
type ReadinessGate struct {
	ConditionType string `yaml:"conditionType" json:"conditionType"`
}

// Inventory is the apply-time inventory object of a package.
type Inventory struct {
	Namespace   string            `yaml:"namespace,omitempty" json:"namespace,omitempty"`
	Name        string            `yaml:"name,omitempty" json:"name,omitempty"`
	InventoryID string            `yaml:"inventoryID,omitempty" json:"inventoryID,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty" json:"annotations,omitempty"`
}

// Status is the Kptfile's status section (conditions, as Porch writes them).
type Status struct {
	Conditions []Condition `yaml:"conditions,omitempty" json:"conditions,omitempty"`
}

// Condition is one status condition.
type Condition struct {
	Type    string `yaml:"type" json:"type"`
	Status  string `yaml:"status" json:"status"`
	Reason  string `yaml:"reason,omitempty" json:"reason,omitempty"`
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// Pipeline is the Kptfile's function pipeline: mutators, then validators.
type Pipeline struct {
	Mutators   []Function `yaml:"mutators,omitempty" json:"mutators,omitempty"`
	Validators []Function `yaml:"validators,omitempty" json:"validators,omitempty"`
}

// IsEmpty reports whether the pipeline has no function at all.
func (p *Pipeline) IsEmpty() bool {
	return p == nil || len(p.Mutators) == 0 && len(p.Validators) == 0
}

// Function is one entry of a Kptfile pipeline (kpt's v1.Function).
type Function struct {
	// Image names a function container image; porchbot runs the matching built-in.
	Image string `yaml:"image,omitempty" json:"image,omitempty"`
	// Exec is a command line (path plus arguments, split like a shell would).
	Exec string `yaml:"exec,omitempty" json:"exec,omitempty"`
	// ConfigPath is a package-relative file holding the function config.
	ConfigPath string `yaml:"configPath,omitempty" json:"configPath,omitempty"`
	// ConfigMap becomes a ConfigMap named function-input holding this data.
	ConfigMap map[string]string `yaml:"configMap,omitempty" json:"configMap,omitempty"`
	// Name identifies the declaration (kpt uses it to merge pipelines).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Selectors limit the resources the function sees (any selector may match).
	Selectors []Selector `yaml:"selectors,omitempty" json:"selectors,omitempty"`
	// Exclusions remove resources from what the selectors chose.
	Exclusions []Selector `yaml:"exclude,omitempty" json:"exclude,omitempty"`
}

// DisplayName is what kpt prints for the function: its image or its exec line.
func (f Function) DisplayName() string {
	if f.Image != "" {
		return f.Image
	}
	return f.Exec
}

// Selector matches resources by GVK, name, namespace, labels and annotations;
// every field set must match.
type Selector struct {
	APIVersion  string            `yaml:"apiVersion,omitempty" json:"apiVersion,omitempty"`
	Kind        string            `yaml:"kind,omitempty" json:"kind,omitempty"`
	Name        string            `yaml:"name,omitempty" json:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty" json:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty" json:"annotations,omitempty"`
}

// IsEmpty reports whether no criterion is set.
func (s Selector) IsEmpty() bool {
	return s.APIVersion == "" && s.Kind == "" && s.Name == "" && s.Namespace == "" &&
		len(s.Labels) == 0 && len(s.Annotations) == 0
}

// KptfileError is an unreadable or invalid Kptfile.
type KptfileError struct {
	Path string // package directory
	Err  error
}

func (e *KptfileError) Error() string {
	return fmt.Sprintf("Kptfile at %q can't be read: %v", e.Path, e.Err)
}

func (e *KptfileError) Unwrap() error { return e.Err }

// DecodeKptfile decodes a Kptfile the way kpt does: apiVersion and kind are
// checked first (old v1alpha1/v1alpha2 schemas are refused with a hint), then
// the document is decoded with unknown fields rejected.
func DecodeKptfile(b []byte) (*Kptfile, error) {
	if err := checkKptfileVersion(b); err != nil {
		return nil, err
	}
	kf := &Kptfile{}
	d := yaml.NewDecoder(bytes.NewReader(b))
	d.KnownFields(true)
	if err := d.Decode(kf); err != nil {
		return nil, err
	}
	return kf, nil
}

func checkKptfileVersion(b []byte) error {
	r, err := yaml.Parse(string(b))
	if err != nil {
		return err
	}
	m, err := r.GetMeta()
	if err != nil {
		return err
	}
	group, version, err := splitGroupVersion(m.APIVersion)
	if err != nil {
		return err
	}
	switch {
	case group == kptfileGroup && m.Kind == kptfileKind && version == kptfileVersion:
		return nil
	case group == kptfileGroup && m.Kind == kptfileKind && (version == "v1alpha1" || version == "v1alpha2"):
		return fmt.Errorf("old version (%q) of the Kptfile schema; upgrade the package to %s "+
			"(kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources)", version, kptfileAPIVersion)
	default:
		return fmt.Errorf("unknown resource type %q found in Kptfile", m.APIVersion+", Kind="+m.Kind)
	}
}

func splitGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		i := strings.Index(gv, "/")
		return gv[:i], gv[i+1:], nil
	default:
		return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
	}
}

// ValidateError is an invalid Kptfile field, worded as kpt words it.
type ValidateError struct {
	Field, Value, Reason string
}

func (e *ValidateError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Kptfile is invalid:\nField: `%s`\n", e.Field)
	if e.Value != "" {
		fmt.Fprintf(&sb, "Value: %q\n", e.Value)
	}
	fmt.Fprintf(&sb, "Reason: %s\n", e.Reason)
	return sb.String()
}

// validatePipeline applies kpt's static pipeline checks.
func validatePipeline(fsys filesys.FileSystem, pkgPath string, p *Pipeline) error {
	if p == nil {
		return nil
	}
	for i := range p.Mutators {
		if err := validateFunction(fsys, pkgPath, "mutators", i, &p.Mutators[i]); err != nil {
			return fmt.Errorf("invalid pipeline: function %q: %w", p.Mutators[i].Image, err)
		}
	}
	for i := range p.Validators {
		if err := validateFunction(fsys, pkgPath, "validators", i, &p.Validators[i]); err != nil {
			return fmt.Errorf("invalid pipeline: function %q: %w", p.Validators[i].Image, err)
		}
	}
	return nil
}

func validateFunction(fsys filesys.FileSystem, pkgPath, fnType string, idx int, f *Function) error {
	field := fmt.Sprintf("pipeline.%s[%d]", fnType, idx)
	if f.Image == "" && f.Exec == "" {
		return &ValidateError{Field: field, Reason: "must specify a functon (`image` or `exec`) to execute"}
	}
	if f.Image != "" && f.Exec != "" {
		return &ValidateError{Field: field, Reason: "must not specify both `image` and `exec` at the same time"}
	}
	if f.Image != "" {
		if err := ValidateFunctionImage(f.Image); err != nil {
			return &ValidateError{Field: field + ".image", Value: f.Image, Reason: err.Error()}
		}
	}
	if len(f.ConfigMap) != 0 && f.ConfigPath != "" {
		return &ValidateError{Field: field,
			Reason: "functionConfig must not specify both `configMap` and `configPath` at the same time"}
	}
	if f.ConfigPath != "" {
		if err := validateConfigPathSyntax(f.ConfigPath); err != nil {
			return &ValidateError{Field: field + ".configPath", Value: f.ConfigPath, Reason: err.Error()}
		}
		if _, err := readFnConfigFile(fsys, pkgPath, f.ConfigPath); err != nil {
			return &ValidateError{Field: field + ".configPath", Value: f.ConfigPath, Reason: err.Error()}
		}
	}
	return nil
}

var imageRE = func() *regexp.Regexp {
	path := `(?:[a-z0-9](?:(?:[_.]|__|[-]*)[a-z0-9]+)*)`
	domainComp := `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domain := fmt.Sprintf(`%s(?:\.%s)*(?:\:[0-9]+)?`, domainComp, domainComp)
	name := fmt.Sprintf(`(?:%s\/)?%s(?:\/%s)*`, domain, path, path)
	version := `((?:[\w][\w.-]{0,127})|(sha256:[a-zA-Z0-9]{64}))`
	return regexp.MustCompile(fmt.Sprintf(`^(?:%s(?:(\:|@)%s)?)$`, name, version))
}()

// ValidateFunctionImage checks an image reference the way kpt does (docker
// reference grammar).
func ValidateFunctionImage(image string) error {
	if !imageRE.MatchString(image) {
		return fmt.Errorf("function name %q is invalid", image)
	}
	return nil
}

func validateConfigPathSyntax(p string) error {
	if strings.TrimSpace(p) == "" {
		return fmt.Errorf("path must not be empty")
	}
	p = filepath.Clean(p)
	if filepath.IsAbs(p) {
		return fmt.Errorf("path must be relative")
	}
	if strings.Contains(p, "..") {
		return fmt.Errorf("path must not be outside the package")
	}
	return nil
}

// readFnConfigFile reads the one KRM resource a configPath file must hold.
func readFnConfigFile(fsys filesys.FileSystem, pkgPath, configPath string) (*yaml.RNode, error) {
	b, err := fsys.ReadFile(filepath.Join(pkgPath, configPath))
	if err != nil {
		return nil, fmt.Errorf("functionConfig must exist in the current package")
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), PreserveSeqIndent: true,
		WrapBareSeqNode: true, DisableUnwrapping: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("failed to read functionConfig %q: %w", configPath, err)
	}
	if len(nodes) > 1 {
		return nil, fmt.Errorf("functionConfig %q must not contain more than one config, got %d", configPath, len(nodes))
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("functionConfig %q: resource must have `apiVersion`, `kind`, and `name`", configPath)
	}
	if err := isKRM(nodes[0]); err != nil {
		return nil, fmt.Errorf("functionConfig %q: %s", configPath, err.Error())
	}
	return nodes[0], nil
}

// kustomizationFileNames are the file names kustomize recognises; kpt lets
// them through its KRM check.
var kustomizationFileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// isKRM reports why a resource is not a KRM resource (apiVersion, kind and
// metadata.name required), excusing kustomization files as kpt does.
func isKRM(n *yaml.RNode) error {
	if isKustomization(n) {
		return nil
	}
	apiVersion, kind, name, missing := krmMeta(n)
	switch {
	case missing:
		return fmt.Errorf("resource must have `apiVersion`, `kind`, and `name`")
	case apiVersion == "":
		return fmt.Errorf("resource must have `apiVersion`")
	case kind == "":
		return fmt.Errorf("resource must have `kind`")
	case name == "":
		return fmt.Errorf("resource must have `metadata.name`")
	}
	return nil
}

func areKRM(nodes []*yaml.RNode) error {
	for _, n := range nodes {
		if err := isKRM(n); err != nil {
			p, _ := fileAnnotations(n)
			return fmt.Errorf("%s: %s", p, err.Error())
		}
	}
	return nil
}

func isKustomization(n *yaml.RNode) bool {
	p, _ := fileAnnotations(n)
	base := filepath.Base(p)
	for _, k := range kustomizationFileNames {
		if base == k {
			return true
		}
	}
	apiVersion, kind, _, missing := krmMeta(n)
	if missing {
		return false
	}
	return strings.HasPrefix(apiVersion, "kustomize.config.k8s.io") ||
		apiVersion == "" && kind == "Kustomization"
}
