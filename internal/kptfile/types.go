package kptfile

import (
	"strings"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Identity of a Kptfile.
const (
	FileName   = "Kptfile"
	APIVersion = "kpt.dev/v1"
	Kind       = "Kptfile"

	// LocalConfigAnnotation marks a resource as local to kpt (not applied
	// to a cluster); kpt pkg init sets it to "true" on the Kptfile.
	LocalConfigAnnotation = "config.kubernetes.io/local-config"

	// SaveOnRenderFailureAnnotation, "true" on the root Kptfile, asks kpt
	// (from v1.0.0-beta.67) to write what a failed render had rendered up
	// to the failure, for debugging.
	SaveOnRenderFailureAnnotation = "kpt.dev/save-on-render-failure"
	// BFSRenderingAnnotation, "true" on the root Kptfile, asks kpt (from
	// v1.0.0-beta.67) to render top-down: a package before its
	// subpackages, each seeing itself and its descendants.
	BFSRenderingAnnotation = "kpt.dev/bfs-rendering"
)

// AnnotationTrue reports whether the Kptfile's annotation key says "true"
// as kpt reads a condition (any case).
func (k *Kptfile) AnnotationTrue(key string) bool {
	return k != nil && strings.EqualFold(k.Metadata.Annotations[key], "true")
}

// oldAPIGroup is the group of the Kptfile schemas before v1 (v1alpha1,
// v1alpha2), which kpt v1 refuses.
const oldAPIGroup = "kpt.dev"

// UpgradeCommand is kpt's way to rewrite a package's old Kptfile schema as
// kpt.dev/v1.
const UpgradeCommand = "kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources"

// OriginGit is the only upstream type kpt v1 (and porchbot) knows.
const OriginGit = "git"

// Update strategies of `kpt pkg update` (upstream.updateStrategy).
const (
	ResourceMerge      = "resource-merge"
	FastForward        = "fast-forward"
	ForceDeleteReplace = "force-delete-replace"
	CopyMerge          = "copy-merge"
)

// UpdateStrategies lists the strategies in kpt's order.
var UpdateStrategies = []string{ResourceMerge, FastForward, ForceDeleteReplace, CopyMerge}

// Condition statuses.
const (
	ConditionTrue    = "True"
	ConditionFalse   = "False"
	ConditionUnknown = "Unknown"
)

// Problem and ValidationError are the positioned errors of Parse.
type (
	Problem         = strictyaml.Problem
	ValidationError = strictyaml.ValidationError
)

// Kptfile is the typed content of a Kptfile, as kpt's v1 API. The field
// tags give kpt's field names and order, so a value marshals as kpt writes it.
type Kptfile struct {
	APIVersion   string        `json:"apiVersion" yaml:"apiVersion"`
	Kind         string        `json:"kind" yaml:"kind"`
	Metadata     Metadata      `json:"metadata" yaml:"metadata"`
	Upstream     *Upstream     `json:"upstream,omitempty" yaml:"upstream,omitempty"`
	UpstreamLock *UpstreamLock `json:"upstreamLock,omitempty" yaml:"upstreamLock,omitempty"`
	Info         *Info         `json:"info,omitempty" yaml:"info,omitempty"`
	Pipeline     *Pipeline     `json:"pipeline,omitempty" yaml:"pipeline,omitempty"`
	Inventory    *Inventory    `json:"inventory,omitempty" yaml:"inventory,omitempty"`
	Status       *Status       `json:"status,omitempty" yaml:"status,omitempty"`
}

// Metadata is the Kptfile's object metadata (kpt accepts these four fields).
type Metadata struct {
	Name        string            `json:"name,omitempty" yaml:"name,omitempty"`
	Namespace   string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// Upstream is where the package was fetched from (what the user asked for).
type Upstream struct {
	Type           string `json:"type,omitempty" yaml:"type,omitempty"`
	Git            *Git   `json:"git,omitempty" yaml:"git,omitempty"`
	UpdateStrategy string `json:"updateStrategy,omitempty" yaml:"updateStrategy,omitempty"`
}

// Git locates a package in a git repository. kpt writes Directory with a
// leading slash ("/network/upf").
type Git struct {
	Repo      string `json:"repo,omitempty" yaml:"repo,omitempty"`
	Directory string `json:"directory,omitempty" yaml:"directory,omitempty"`
	Ref       string `json:"ref,omitempty" yaml:"ref,omitempty"`
}

// UpstreamLock is the resolved upstream of the last fetch or update.
type UpstreamLock struct {
	Type string   `json:"type,omitempty" yaml:"type,omitempty"`
	Git  *GitLock `json:"git,omitempty" yaml:"git,omitempty"`
}

// GitLock is Git plus the commit SHA that was fetched.
type GitLock struct {
	Repo      string `json:"repo,omitempty" yaml:"repo,omitempty"`
	Directory string `json:"directory,omitempty" yaml:"directory,omitempty"`
	Ref       string `json:"ref,omitempty" yaml:"ref,omitempty"`
	Commit    string `json:"commit,omitempty" yaml:"commit,omitempty"`
}

// Info is the package's descriptive metadata.
type Info struct {
	Site           string          `json:"site,omitempty" yaml:"site,omitempty"`
	Emails         []string        `json:"emails,omitempty" yaml:"emails,omitempty"`
	License        string          `json:"license,omitempty" yaml:"license,omitempty"`
	LicenseFile    string          `json:"licenseFile,omitempty" yaml:"licenseFile,omitempty"`
	Description    string          `json:"description,omitempty" yaml:"description,omitempty"`
	Keywords       []string        `json:"keywords,omitempty" yaml:"keywords,omitempty"`
	Man            string          `json:"man,omitempty" yaml:"man,omitempty"`
	ReadinessGates []ReadinessGate `json:"readinessGates,omitempty" yaml:"readinessGates,omitempty"`
}

// ReadinessGate names a condition that must be True before the package is
// ready (porchbot: before a proposal may merge).
type ReadinessGate struct {
	ConditionType string `json:"conditionType" yaml:"conditionType"`
}

// Pipeline is the package's function pipeline: mutators, then validators.
type Pipeline struct {
	Mutators   []Function `json:"mutators,omitempty" yaml:"mutators,omitempty"`
	Validators []Function `json:"validators,omitempty" yaml:"validators,omitempty"`
}

// IsEmpty reports whether the pipeline has no function at all.
func (p *Pipeline) IsEmpty() bool {
	return p == nil || len(p.Mutators) == 0 && len(p.Validators) == 0
}

// Function is one KRM function of a pipeline: an image or an exec, with its
// configuration (a file or an inline ConfigMap) and resource selection.
type Function struct {
	Image      string            `json:"image,omitempty" yaml:"image,omitempty"`
	Exec       string            `json:"exec,omitempty" yaml:"exec,omitempty"`
	ConfigPath string            `json:"configPath,omitempty" yaml:"configPath,omitempty"`
	ConfigMap  map[string]string `json:"configMap,omitempty" yaml:"configMap,omitempty"`
	Name       string            `json:"name,omitempty" yaml:"name,omitempty"`
	// Tag is newer kpt's version constraint for Image; accepted so that
	// Kptfiles written by newer kpt are not refused.
	Tag       string     `json:"tag,omitempty" yaml:"tag,omitempty"`
	Selectors []Selector `json:"selectors,omitempty" yaml:"selectors,omitempty"`
	Exclude   []Selector `json:"exclude,omitempty" yaml:"exclude,omitempty"`
}

// DisplayName is what kpt prints for the function: its image or its exec
// line.
func (f Function) DisplayName() string {
	if f.Image != "" {
		return f.Image
	}
	return f.Exec
}

// Selector selects resources by any of its fields (all given must match).
type Selector struct {
	APIVersion  string            `json:"apiVersion,omitempty" yaml:"apiVersion,omitempty"`
	Kind        string            `json:"kind,omitempty" yaml:"kind,omitempty"`
	Name        string            `json:"name,omitempty" yaml:"name,omitempty"`
	Namespace   string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// IsEmpty reports whether s selects nothing in particular.
func (s Selector) IsEmpty() bool {
	return s.APIVersion == "" && s.Kind == "" && s.Name == "" && s.Namespace == "" &&
		len(s.Labels) == 0 && len(s.Annotations) == 0
}

// Inventory holds the parameters of `kpt live` inventory objects.
type Inventory struct {
	Namespace   string            `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Name        string            `json:"name,omitempty" yaml:"name,omitempty"`
	InventoryID string            `json:"inventoryID,omitempty" yaml:"inventoryID,omitempty"`
	Labels      map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// Status is the package's status: its conditions (which readiness gates
// refer to) and, since kpt v1.0.0-beta.67, what the last render did
// (RenderStatus). A render status read is accepted and kept as written but
// not interpreted (HasRenderStatus reports it); RenderStatus is set only
// by a render that writes it (WriteRenderStatus).
type Status struct {
	Conditions      []Condition   `json:"conditions,omitempty" yaml:"conditions,omitempty"`
	RenderStatus    *RenderStatus `json:"renderStatus,omitempty" yaml:"renderStatus,omitempty"`
	HasRenderStatus bool          `json:"-" yaml:"-"`
}

// Condition is one condition of the package status.
type Condition struct {
	Type    string `json:"type" yaml:"type"`
	Status  string `json:"status" yaml:"status"`
	Reason  string `json:"reason,omitempty" yaml:"reason,omitempty"`
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
}

// Condition returns the condition of type t.
func (s *Status) Condition(t string) (Condition, bool) {
	if s == nil {
		return Condition{}, false
	}
	for _, c := range s.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return Condition{}, false
}
