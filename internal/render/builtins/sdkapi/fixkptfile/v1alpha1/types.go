// Package v1alpha1 holds the v1alpha1 (kpt v0.x) Kptfile types the catalog's
// fix function (v0.2.0–v0.2.1) decodes an old Kptfile into strictly: a field
// they lack fails it, with the error naming these types (`field foo not
// found in type v1alpha1.KptFile`).
package v1alpha1

import "sigs.k8s.io/kustomize/kyaml/yaml"

// KptFile is the kpt v0.x Kptfile.
type KptFile struct {
	yaml.ResourceMeta `yaml:",inline"`
	Upstream          *Upstream    `yaml:"upstream,omitempty"`
	PackageMeta       *PackageMeta `yaml:"packageMetadata,omitempty"`
	Dependencies      []Dependency `yaml:"dependencies,omitempty"`
	OpenAPI           interface{}  `yaml:"openAPI,omitempty"`
	Functions         Functions    `yaml:"functions,omitempty"`
	Inventory         *Inventory   `yaml:"inventory,omitempty"`
}

// Inventory is the package's inventory object.
type Inventory struct {
	Namespace   string            `yaml:"namespace,omitempty"`
	Name        string            `yaml:"name,omitempty"`
	InventoryID string            `yaml:"inventoryID,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// Functions is the old Kptfile's starlark settings.
type Functions struct {
	AutoRunStarlark   bool               `yaml:"autoRunStarlark,omitempty"`
	StarlarkFunctions []StarlarkFunction `yaml:"starlarkFunctions,omitempty"`
}

// StarlarkFunction is a starlark program of the old Kptfile.
type StarlarkFunction struct {
	Name string `yaml:"name,omitempty"`
	Path string `yaml:"path,omitempty"`
}

// Dependency is a package the old Kptfile depends on.
type Dependency struct {
	Name            string `yaml:"name,omitempty"`
	Upstream        `yaml:",inline,omitempty"`
	EnsureNotExists bool       `yaml:"ensureNotExists,omitempty"`
	Strategy        string     `yaml:"updateStrategy,omitempty"`
	Functions       []Function `yaml:"functions,omitempty"`
	AutoSet         bool       `yaml:"autoSet,omitempty"`
}

// PackageMeta describes the package.
type PackageMeta struct {
	URL              string   `yaml:"url,omitempty"`
	Email            string   `yaml:"email,omitempty"`
	License          string   `yaml:"license,omitempty"`
	Version          string   `yaml:"version,omitempty"`
	Tags             []string `yaml:"tags,omitempty"`
	Man              string   `yaml:"man,omitempty"`
	ShortDescription string   `yaml:"shortDescription,omitempty"`
}

// OriginType is an upstream's type.
type OriginType string

// Upstream is where the package came from.
type Upstream struct {
	Type  OriginType `yaml:"type,omitempty"`
	Git   Git        `yaml:"git,omitempty"`
	Stdin Stdin      `yaml:"stdin,omitempty"`
}

// Stdin is an upstream read from stdin.
type Stdin struct {
	FilenamePattern string `yaml:"filenamePattern,omitempty"`
	Original        string `yaml:"original,omitempty"`
}

// Git is a git upstream.
type Git struct {
	Commit    string `yaml:"commit,omitempty"`
	Repo      string `yaml:"repo,omitempty"`
	Directory string `yaml:"directory,omitempty"`
	Ref       string `yaml:"ref,omitempty"`
}

// Function is a dependency's function.
type Function struct {
	Config yaml.Node `yaml:"config,omitempty"`
	Image  string    `yaml:"image,omitempty"`
}
