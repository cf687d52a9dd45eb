package config

import "github.com/porchbot/porchbot/internal/packages"

// Defaults of the settings that have one.
const (
	DefaultRequiredApprovals = 1
	DefaultPRConcurrentLimit = 10
)

// Default is the configuration of a repository without .github/porchbot.yaml,
// before server limits: packages at the repository root, the default branch
// as deployment branch, not a deployment repository, publish on merge with a
// release and the package's other drafts rebased on it, a deletion of a
// package others track acknowledged by an approver, one approval from
// anyone with write access (not the author), drafts rendered with a
// commit, update pull requests labelled porch/update, at most 10 at once,
// no automerge, no variants, the dashboard issue on.
func Default() *Config {
	return &Config{
		Packages: Packages{Root: "", DeploymentBranch: "", Deployment: false},
		Lifecycle: Lifecycle{PublishOn: PublishOnMerge, Releases: true, IndexBranch: DefaultIndexBranch, RebaseDrafts: true,
			DeletionWithDownstreams: DeletionRequireAck},
		Approvals: Approvals{Required: DefaultRequiredApprovals, Approvers: []UserOrTeam{}},
		Render:    Render{OnDraftPush: OnDraftPushCommit},
		Functions: Functions{Exec: map[string]string{}},
		Updates: Updates{
			Labels:            []string{packages.LabelUpdate},
			Reviewers:         []UserOrTeam{},
			PRConcurrentLimit: DefaultPRConcurrentLimit,
			OnConflict:        ConflictUpstream,
		},
		Variants:  []Variant{},
		Dashboard: Dashboard{Enabled: true},
	}
}

// DefaultFor is Default within the server's limits: the lifecycle uses it
// for a repository without a configuration file. Approvals are raised to
// the server minimum and the concurrency limit lowered to its maximum.
func DefaultFor(l ServerLimits) *Config {
	c := Default()
	c.Approvals.Required = max(c.Approvals.Required, l.MinApprovals)
	if l.MaxPRConcurrentLimit > 0 {
		c.Updates.PRConcurrentLimit = min(c.Updates.PRConcurrentLimit, l.MaxPRConcurrentLimit)
	}
	return c
}
