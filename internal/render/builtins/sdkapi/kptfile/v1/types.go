// Package v1 holds the Kptfile types of the kpt functions SDK of August
// 2021 (go/pkg/api/kptfile/v1), field for field, for list-setters v0.1.0,
// which decodes the Kptfile into them strictly: a field they lack fails it,
// with the error naming these types (`field exec not found in type
// v1.Function`). It is not kpt's Kptfile (internal/kptfile reads that).
package v1

// ResourceMeta is the SDK's object head.
type ResourceMeta struct {
	TypeMeta   `yaml:",inline"`
	ObjectMeta `yaml:"metadata,omitempty"`
}

// TypeMeta is apiVersion and kind.
type TypeMeta struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
}

// ObjectMeta is the metadata the SDK knew.
type ObjectMeta struct {
	NameMeta    `yaml:",inline"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// NameMeta is name and namespace.
type NameMeta struct {
	Name      string `yaml:"name,omitempty"`
	Namespace string `yaml:"namespace,omitempty"`
}

// KptFile is the Kptfile.
type KptFile struct {
	ResourceMeta `yaml:",inline"`
	Upstream     *Upstream     `yaml:"upstream,omitempty"`
	UpstreamLock *UpstreamLock `yaml:"upstreamLock,omitempty"`
	Info         *PackageInfo  `yaml:"info,omitempty"`
	Pipeline     *Pipeline     `yaml:"pipeline,omitempty"`
	Inventory    *Inventory    `yaml:"inventory,omitempty"`
}

// OriginType is an upstream's type.
type OriginType string

// UpdateStrategyType is an upstream's update strategy.
type UpdateStrategyType string

// Upstream is where the package came from.
type Upstream struct {
	Type           OriginType         `yaml:"type,omitempty"`
	Git            *Git               `yaml:"git,omitempty"`
	UpdateStrategy UpdateStrategyType `yaml:"updateStrategy,omitempty"`
}

// Git is a git upstream.
type Git struct {
	Repo      string `yaml:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty"`
}

// UpstreamLock is the upstream resolved.
type UpstreamLock struct {
	Type OriginType `yaml:"type,omitempty"`
	Git  *GitLock   `yaml:"git,omitempty"`
}

// GitLock is a git upstream resolved to a commit.
type GitLock struct {
	Repo      string `yaml:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty"`
	Commit    string `yaml:"commit,omitempty"`
}

// PackageInfo describes the package.
type PackageInfo struct {
	Site        string   `yaml:"site,omitempty"`
	Emails      []string `yaml:"emails,omitempty"`
	License     string   `yaml:"license,omitempty"`
	LicenseFile string   `yaml:"licenseFile,omitempty"`
	Description string   `yaml:"description,omitempty"`
	Keywords    []string `yaml:"keywords,omitempty"`
	Man         string   `yaml:"man,omitempty"`
}

// Pipeline is the package's functions.
type Pipeline struct {
	Mutators   []Function `yaml:"mutators,omitempty"`
	Validators []Function `yaml:"validators,omitempty"`
}

// Function is a pipeline's function.
type Function struct {
	Image      string            `yaml:"image,omitempty"`
	ConfigPath string            `yaml:"configPath,omitempty"`
	ConfigMap  map[string]string `yaml:"configMap,omitempty"`
}

// Inventory is the package's inventory object.
type Inventory struct {
	Namespace   string            `yaml:"namespace,omitempty"`
	Name        string            `yaml:"name,omitempty"`
	InventoryID string            `yaml:"inventoryID,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}
