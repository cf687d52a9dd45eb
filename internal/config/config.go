package config

import (
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Path is where a repository keeps its configuration.
const Path = ".github/porchbot.yaml"

// Identity of the configuration document.
const (
	APIVersion = "porchbot.dev/v1alpha1"
	Kind       = "RepositoryConfig"
)

// lifecycle.publishOn values.
const (
	PublishOnMerge = "merge" // tag a revision when a proposal merges
	PublishOnNever = "never" // tag only on /porch publish
)

// lifecycle.deletionWithDownstreams values: may a proposal that deletes a
// package other packages track (its live downstreams) pass the approval
// policy without an approver's `/porch approve --orphan-downstreams`?
const (
	DeletionRequireAck = "require-ack" // it needs that acknowledgement
	DeletionAllow      = "allow"       // it is judged as any proposal
)

// render.onDraftPush values.
const (
	OnDraftPushCommit = "commit" // push the rendered result on top of the draft
	OnDraftPushCheck  = "check"  // only report in the porchbot/render check
)

// KptReleases are render.kpt's values: the kpt releases whose render
// porchbot reproduces (internal/render.KptReleases, which a test keeps
// equal). "" is the render's default.
var KptReleases = []string{"v1.0.0-beta.56", "v1.0.0-beta.67"}

// updates.onConflict values: the side taken where both the local package and
// the new upstream changed the same field.
const (
	ConflictUpstream = "upstream" // as kpt pkg update does
	ConflictLocal    = "local"
	ConflictFail     = "fail" // no merge: the update pull request lists the conflicts
)

// variants[].adoptionPolicy and deletionPolicy values (PackageVariant's).
const (
	AdoptNone      = "adoptNone"
	AdoptExisting  = "adoptExisting"
	DeleteOnRemove = "delete"
	OrphanOnRemove = "orphan"
)

// LatestRevision is VariantUpstream.Revision for "latest".
const LatestRevision = 0

// Problem and ValidationError are the positioned errors of Parse.
type (
	Problem         = strictyaml.Problem
	ValidationError = strictyaml.ValidationError
)

// Config is a repository's configuration, defaults filled in. Treat a
// Config as read-only once parsed: it is shared (see Cache).
type Config struct {
	Packages  Packages
	Lifecycle Lifecycle
	Approvals Approvals
	Render    Render
	Functions Functions
	Updates   Updates
	Variants  []Variant
	Dashboard Dashboard
	Flows     Flows
}

// Flows says where this repository's content may go (internal/flow,
// docs/configuration.md).
type Flows struct {
	// AllowWiderReaders lets porchbot carry this repository's content
	// (clones, update pull requests, variants) into repositories more
	// people can read (a public one, for a private or internal
	// repository; an internal one, for a private). Default false.
	AllowWiderReaders bool
}

// Dashboard configures the "Package dashboard" issue (docs/dashboard.md).
type Dashboard struct {
	// Enabled opens and refreshes the issue (default true); false closes
	// porchbot's open one.
	Enabled bool
}

// Packages says where packages live.
type Packages struct {
	// Root is the directory packages are named from, as a clean
	// repository path ("" for the repository root, written "." in YAML).
	Root string
	// DeploymentBranch is the branch proposals merge into and revisions
	// are tagged on; "" means the repository's default branch.
	DeploymentBranch string
	// Deployment is Porch's "deployment repository" flag.
	Deployment bool
}

// Lifecycle says how revisions are published.
type Lifecycle struct {
	PublishOn string // PublishOnMerge or PublishOnNever
	Releases  bool   // also create a GitHub Release per revision
	// IndexBranch is the branch holding the package index, index.yaml
	// (DefaultIndexBranch).
	IndexBranch string
	// RebaseDrafts: a published revision rebases the package's other
	// drafts on it (docs/drafts.md).
	RebaseDrafts bool
	// DeletionWithDownstreams is DeletionRequireAck (the default) or
	// DeletionAllow.
	DeletionWithDownstreams string
}

// DefaultIndexBranch is lifecycle.indexBranch by default.
const DefaultIndexBranch = "porch/index"

// Approvals is the approval policy of proposals.
type Approvals struct {
	// Required is the number of approvals a proposal needs.
	Required int
	// Approvers may approve; empty means anyone with write access.
	Approvers []UserOrTeam
	// AllowSelfApproval lets a proposal's author approve it.
	AllowSelfApproval bool
}

// UserOrTeam is a GitHub user ("alice") or team ("@org/platform").
type UserOrTeam struct {
	Login     string // set for a user
	Org, Team string // set for a team (Team is the team's slug)
}

// IsTeam reports whether u is a team.
func (u UserOrTeam) IsTeam() bool { return u.Team != "" }

// String is the form used in the configuration: "alice" or "@org/team".
func (u UserOrTeam) String() string {
	if u.IsTeam() {
		return "@" + u.Org + "/" + u.Team
	}
	return u.Login
}

// Render configures the bot's rendering of drafts.
type Render struct {
	OnDraftPush string // OnDraftPushCommit or OnDraftPushCheck
	// Kpt is the kpt release whose render to reproduce (KptReleases; ""
	// the render's default).
	Kpt string
	// PushOnFailure: a draft whose render failed, and whose root Kptfile
	// asks kpt to save a failed render (kpt.dev/save-on-render-failure,
	// with a Kpt release that reads it), gets what the render had rendered
	// up to the failure pushed as the bot's Render commit, for debugging
	// (Porch's porch.kpt.dev/push-on-render-failure). The check still fails.
	PushOnFailure bool
	// Mutators and Validators are repository-wide guardrail functions
	// (kpt Function entries).
	Mutators   []kptfile.Function
	Validators []kptfile.Function
}

// Functions configures exec functions.
type Functions struct {
	// Exec maps a function name (what a pipeline's "exec:" names) to an
	// executable path. Every name is in the server's exec allowlist.
	Exec map[string]string
}

// Updates configures downstream update pull requests.
type Updates struct {
	Labels            []string
	Reviewers         []UserOrTeam
	PRConcurrentLimit int // open update pull requests at once; 0: no limit
	Automerge         bool
	// Strategy is the kpt update strategy; "" uses the downstream
	// Kptfile's upstream.updateStrategy (resource-merge by default, as kpt).
	Strategy string
	// OnConflict is the side taken where both sides changed the same
	// field: ConflictUpstream (kpt's behaviour, the default),
	// ConflictLocal, or ConflictFail (the update is not merged; the
	// conflicts are listed instead).
	OnConflict string
	// Rollouts order the downstreams of this repository's packages into
	// waves (docs/rollouts.md).
	Rollouts []Rollout
}

// Variant fans an upstream package out to downstream repositories (Porch's
// PackageVariant and PackageVariantSet).
type Variant struct {
	Upstream   VariantUpstream
	Targets    Targets
	Downstream VariantDownstream
	// Labels and Annotations are set on the downstream Kptfile's metadata.
	Labels      map[string]string
	Annotations map[string]string
	// Namespace is a template (like Downstream.Package) for the namespace
	// of the downstream package's resources; "" leaves it alone.
	Namespace string
	// Pipeline is prepended to the downstream package's pipeline.
	Pipeline kptfile.Pipeline
	// Injectors are files in the downstream repository whose contents
	// replace resources marked kpt.dev/config-injection.
	Injectors      []string
	AdoptionPolicy string // AdoptNone or AdoptExisting
	DeletionPolicy string // DeleteOnRemove or OrphanOnRemove
	Paused         bool
	// Rollout orders the updates of the variant's upstream package into
	// waves (nil: every downstream at once).
	Rollout *Rollout

	downstream, namespace *nameTemplate
}

// VariantUpstream is the upstream package of a variant, in this repository.
type VariantUpstream struct {
	Package  string
	Revision int // LatestRevision (0) or N for vN
}

// Targets are the downstream repositories: a list, or every repository
// where the App is installed that has a topic.
type Targets struct {
	Repositories []string // "owner/name"
	Topic        string   // repositorySelector.topic
}

// VariantDownstream is the downstream package.
type VariantDownstream struct {
	// Package is a template of the downstream package name, e.g. "upf" or
	// "{{ .Repository.Name }}/upf"; by default the upstream package's name.
	Package string
}
