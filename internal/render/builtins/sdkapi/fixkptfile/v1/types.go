// Package v1 holds the v1 Kptfile types the catalog's fix function
// (v0.2.0–v0.2.1) writes a migrated Kptfile from, and decodes a v1alpha2
// Kptfile into strictly: a field they lack fails it, with the error naming
// these types (`field name not found in type v1.Function`). They differ from
// the SDK's of August 2021 (../../kptfile/v1): the package info has `doc`
// and a function an inline `config`. Not kpt's Kptfile (internal/kptfile
// reads that).
package v1

import (
	sdkv1 "github.com/porchbot/porchbot/internal/render/builtins/sdkapi/kptfile/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// APIVersion is the apiVersion of a v1 Kptfile.
const APIVersion = "kpt.dev/v1"

// KptFile is the Kptfile.
type KptFile struct {
	yaml.ResourceMeta `yaml:",inline"`
	Upstream          *Upstream     `yaml:"upstream,omitempty"`
	UpstreamLock      *UpstreamLock `yaml:"upstreamLock,omitempty"`
	Info              *PackageInfo  `yaml:"info,omitempty"`
	Pipeline          *Pipeline     `yaml:"pipeline,omitempty"`
	Inventory         *Inventory    `yaml:"inventory,omitempty"`
}

// The upstream and inventory types are the SDK's (the same fields, and
// the same names in an error).
type (
	// OriginType is an upstream's type.
	OriginType = sdkv1.OriginType
	// UpdateStrategyType is an upstream's update strategy.
	UpdateStrategyType = sdkv1.UpdateStrategyType
	// Upstream is where the package came from.
	Upstream = sdkv1.Upstream
	// Git is a git upstream.
	Git = sdkv1.Git
	// UpstreamLock is the upstream resolved.
	UpstreamLock = sdkv1.UpstreamLock
	// GitLock is a git upstream resolved to a commit.
	GitLock = sdkv1.GitLock
	// Inventory is the package's inventory object.
	Inventory = sdkv1.Inventory
)

// ResourceMerge is the update strategy a migrated upstream gets.
const ResourceMerge UpdateStrategyType = "resource-merge"

// PackageInfo describes the package.
type PackageInfo struct {
	Site        string   `yaml:"site,omitempty"`
	Emails      []string `yaml:"emails,omitempty"`
	License     string   `yaml:"license,omitempty"`
	LicenseFile string   `yaml:"licenseFile,omitempty"`
	Doc         string   `yaml:"doc,omitempty"`
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
	Config     yaml.Node         `yaml:"config,omitempty"`
	ConfigPath string            `yaml:"configPath,omitempty"`
	ConfigMap  map[string]string `yaml:"configMap,omitempty"`
}
