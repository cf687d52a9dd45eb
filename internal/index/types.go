package index

import "time"

// Identity of an index file.
const (
	APIVersion = "porchbot.dev/v1alpha1"
	Kind       = "PackageIndex"
	// FileName is the index's name on its branch and as a release asset.
	FileName = "index.yaml"
	// DefaultBranch is the branch the bot keeps the index on.
	DefaultBranch = "porch/index"
)

// Index is the content of index.yaml.
type Index struct {
	APIVersion string    `json:"apiVersion" yaml:"apiVersion"`
	Kind       string    `json:"kind" yaml:"kind"`
	Repository string    `json:"repository" yaml:"repository"` // owner/name, or the URL it was built from
	Packages   []Package `json:"packages" yaml:"packages"`     // by name
}

// Package is one package and its published revisions.
type Package struct {
	Name        string       `json:"name" yaml:"name"`
	Description string       `json:"description,omitempty" yaml:"description,omitempty"`
	Keywords    []string     `json:"keywords,omitempty" yaml:"keywords,omitempty"`
	Site        string       `json:"site,omitempty" yaml:"site,omitempty"`
	Upstream    *Upstream    `json:"upstream,omitempty" yaml:"upstream,omitempty"`
	Downstreams []Downstream `json:"downstreams,omitempty" yaml:"downstreams,omitempty"`
	// Rollout is the state of the package's rollout in waves, when it has
	// one (docs/rollouts.md): counts only, no repository named.
	Rollout *Rollout `json:"rollout,omitempty" yaml:"rollout,omitempty"`
	// Revisions are newest first.
	Revisions []Revision `json:"revisions" yaml:"revisions"`
}

// Upstream is the package's upstream as its latest revision's Kptfile
// records it (upstream.git, with upstreamLock's commit).
type Upstream struct {
	Repo      string `json:"repo" yaml:"repo"`
	Directory string `json:"directory,omitempty" yaml:"directory,omitempty"`
	Ref       string `json:"ref,omitempty" yaml:"ref,omitempty"`
	Commit    string `json:"commit,omitempty" yaml:"commit,omitempty"`
}

// Downstream is a package, in another repository, known to track this one.
type Downstream struct {
	Repository string `json:"repository" yaml:"repository"`
	Package    string `json:"package" yaml:"package"`
	Revision   int    `json:"revision,omitempty" yaml:"revision,omitempty"` // the revision it tracks, when known
}

// Rollout is a package's rollout as porchbot last planned it: the
// revision rolled out, the rollout's state (idle, rolling, paused,
// stopped, done) and how many downstream packages it targets, hold the
// revision, met the rule (deployed and healthy, or merged when the
// rollout needs no deployment) and reported a failed deployment. The
// counts are written even when zero.
type Rollout struct {
	Revision    int    `json:"revision" yaml:"revision"`
	State       string `json:"state" yaml:"state"`
	Downstreams int    `json:"downstreams" yaml:"downstreams"`
	Merged      int    `json:"merged" yaml:"merged"`
	Healthy     int    `json:"healthy" yaml:"healthy"`
	Failed      int    `json:"failed" yaml:"failed"`
}

// Revision is one published revision.
type Revision struct {
	Revision  int       `json:"revision" yaml:"revision"`
	Tag       string    `json:"tag" yaml:"tag"`
	Commit    string    `json:"commit" yaml:"commit"`
	Digest    string    `json:"digest" yaml:"digest"` // TreeDigest of the package tree at Commit
	Published time.Time `json:"published" yaml:"published"`
	Approvers []string  `json:"approvers,omitempty" yaml:"approvers,omitempty"`
}
