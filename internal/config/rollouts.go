package config

import (
	"strings"
	"time"
)

// Rollout orders the downstreams of one of this repository's packages
// into waves (updates.rollouts, or a variant's rollout; docs/rollouts.md).
type Rollout struct {
	// Package is the upstream package rolled out, a package of this
	// repository.
	Package string
	Waves   []RolloutWave
	// Success is the rule each wave meets before the next one opens:
	// SuccessDeployed (merged, and the deployment reported success on a
	// commit holding the revision) or SuccessMerged.
	Success string
	// DeploymentContexts are the commit status contexts and check run
	// names that report a downstream's deployment (globs, "*" matching
	// any text, compared case-insensitively).
	DeploymentContexts []string
}

// RolloutWave is one wave: its downstreams, how many may be updating at
// once, and how long it soaks after meeting the rule.
type RolloutWave struct {
	Name          string
	Repositories  []string // owner/name or globs of them
	Topic         string
	Labels        map[string]string // on the downstream package's Kptfile
	MaxInProgress int               // 0: no bound
	Soak          time.Duration
}

// rollouts[].success values.
const (
	SuccessDeployed = "deployed"
	SuccessMerged   = "merged"
)

// DefaultDeploymentContexts are what the deployers commonly post:
// Flux's notification controller (kustomization/<name>/<id>,
// helmrelease/...), Argo CD Notifications' github service
// (continuous-delivery/<app>), a Config Sync status reporter
// (config-sync/...), and GitHub Deployments (deployment/<environment>).
var DefaultDeploymentContexts = []string{"kustomization/*", "helmrelease/*", "continuous-delivery/*", "config-sync/*", "deployment/*"}

// Bounds of rollouts.
const (
	MaxRollouts         = 50
	MaxRolloutWaves     = 20
	MaxWaveRepositories = 500
	MaxRolloutContexts  = 20
	MaxSoak             = 14 * 24 * time.Hour
	MaxWaveInProgress   = 10000
)

// RolloutOf is the rollout of package pkg of this repository, from
// updates.rollouts or a variant of pkg.
func (c *Config) RolloutOf(pkg string) (Rollout, bool) {
	for _, r := range c.Updates.Rollouts {
		if r.Package == pkg {
			return r, true
		}
	}
	for _, v := range c.Variants {
		if v.Rollout != nil && v.Upstream.Package == pkg {
			return *v.Rollout, true
		}
	}
	return Rollout{}, false
}

// Rollouts are every rollout of this repository's packages.
func (c *Config) Rollouts() []Rollout {
	out := append([]Rollout(nil), c.Updates.Rollouts...)
	for _, v := range c.Variants {
		if v.Rollout != nil {
			out = append(out, *v.Rollout)
		}
	}
	return out
}

// WaveNamed is the wave of r named name (case-insensitively).
func (r Rollout) WaveNamed(name string) (RolloutWave, bool) {
	for _, w := range r.Waves {
		if strings.EqualFold(w.Name, name) {
			return w, true
		}
	}
	return RolloutWave{}, false
}
