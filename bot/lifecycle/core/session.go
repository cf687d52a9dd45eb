package core

import (
	"context"
	"errors"
	"fmt"

	gogitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/logfields"
)

// Repo names a repository and the App installation acting on it.
type Repo struct {
	Owner, Name    string
	InstallationID int64
	// DefaultBranch is the repository's default branch, from the event.
	DefaultBranch string
	// OpenIssues is the repository's open issues and pull requests
	// together, as the installation's listing of repositories said at the
	// start of a resync pass (nil: not known). It lets a pass prove a
	// repository has no open pull request without listing them
	// (open_pulls.go).
	OpenIssues *int
}

// FullName is "owner/name".
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// Clients gives an installation's GitHub API (internal/github.HubClients).
type Clients interface {
	Installation(ctx context.Context, installationID int64) (hub.API, error)
}

// GitStore gives the git cache of a remote (internal/gitstore.Store).
type GitStore interface {
	Fetch(ctx context.Context, remoteURL string, refspecs ...gogitconfig.RefSpec) (*gitstore.Cache, error)
}

// Opener opens Sessions: one per event, per repository.
type Opener struct {
	Clients Clients
	Git     GitStore
	// GitURL is the clone URL of owner/repo (internal/github.URLs.GitURL).
	GitURL func(owner, repo string) string
	// Configs remembers the last good configuration of each repository.
	Configs *config.Cache
	// Limits are the server's bounds on repository configs.
	Limits config.ServerLimits
	Logger logrus.FieldLogger
	// Downstreams, if set, names in the package index the downstream
	// packages known to track each package (Session.Downstreams).
	Downstreams DownstreamRegistry
	// Rollouts, if set, gives the package index the state of each rollout
	// (Session.Rollouts).
	Rollouts RolloutStates
	// RecordKey signs and verifies revision records (RecordKey; the App's).
	RecordKey []byte

	// RequireConfig refuses a repository whose default branch has no
	// .github/porchbot.yaml (ErrNotOnboarded): the server's onboarding
	// "required". OpenUnconfigured opens it all the same, for onboarding.
	RequireConfig bool

	// ReadThrough makes sessions remember nothing they read: every read
	// goes to the git cache. It is the reference BenchmarkLifecycleAPICalls
	// measures the snapshot against; nothing else sets it.
	ReadThrough bool

	// facts are the content-addressed answers every session of the
	// process shares (snapshot.go).
	facts Facts
}

// Session is one event's view of a repository: its installation client,
// its git cache (fetched: every branch and tag), and the configuration in
// force, read from the deployment branch (never from a pull request head).
type Session struct {
	Repo Repo
	// Hub is the installation's GitHub API.
	Hub    hub.API
	Git    *gitstore.Cache
	Config *config.Config
	// ConfigSHA is the deployment-branch commit the config was read from.
	ConfigSHA plumbing.Hash
	// ConfigErr is set when the deployment branch's config is broken:
	// Config is then the last good one (or the defaults).
	ConfigErr error
	// ConfigInForce is the commit whose version of the file Config is:
	// ConfigSHA when the file there is good (or absent: the defaults);
	// when it is broken, the newest commit of the branch's first-parent
	// history whose version passes (lastGoodConfig), or zero when none
	// does within the bound (the defaults apply).
	ConfigInForce plumbing.Hash
	// ConfigFound says the default branch has .github/porchbot.yaml (good
	// or broken): the repository is onboarded.
	ConfigFound bool
	// DeploymentBranch is config packages.deploymentBranch, or the
	// repository's default branch.
	DeploymentBranch string
	// DeploymentHead is the deployment branch's head when fetched.
	DeploymentHead plumbing.Hash
	Log            logrus.FieldLogger
	// Downstreams is the Opener's (nil: the package index keeps the
	// downstreams it lists).
	Downstreams DownstreamRegistry
	// Rollouts is the Opener's (nil: the package index keeps the rollouts
	// it says).
	Rollouts RolloutStates
	// RecordKey is the Opener's (record_key.go).
	RecordKey []byte
	// noOpenPulls: a resync proved there is no open pull request
	// (open_pulls.go).
	NoOpenPulls bool
	// snap remembers what this event read from the git cache
	// (snapshot.go).
	snap snapshot
	// presets reads the organisation presets the configuration extends
	// (config_presets.go).
	presets *orgPresets
}

// Open fetches the repository (branches and tags) and reads its config.
// With RequireConfig, a repository without its config file is refused
// (ErrNotOnboarded).
func (o *Opener) Open(ctx context.Context, repo Repo) (*Session, error) {
	s, err := o.OpenUnconfigured(ctx, repo)
	if err != nil {
		return nil, err
	}
	if o.RequireConfig && !s.ConfigFound {
		return nil, NotOnboarded(s.Repo)
	}
	return s, nil
}

// OpenUnconfigured is Open without the onboarding gate: the onboarding
// step opens a repository that has no config file yet.
func (o *Opener) OpenUnconfigured(ctx context.Context, repo Repo) (*Session, error) {
	gh, err := o.Clients.Installation(ctx, repo.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("open %s: installation client: %w", repo.FullName(), err)
	}
	cache, err := o.Git.Fetch(ctx, o.GitURL(repo.Owner, repo.Name), gitstore.BranchesRefSpec, gitstore.TagsRefSpec)
	if err != nil {
		return nil, fmt.Errorf("open %s: fetch: %w", repo.FullName(), err)
	}
	var log logrus.FieldLogger = o.Logger
	if o.Logger == nil {
		log = logrus.StandardLogger()
	}
	log = logfields.Apply(ctx, log) // a delivery's id, when one set this off
	s := &Session{Repo: repo, Hub: gh, Git: cache, Log: log.WithField("repository", repo.FullName()), Downstreams: o.Downstreams,
		Rollouts:  o.Rollouts,
		snap:      snapshot{facts: &o.facts, off: o.ReadThrough},
		RecordKey: o.RecordKey}
	s.presets = &orgPresets{owner: repo.Owner, hub: gh, fetch: func(ctx context.Context, branch string) (*gitstore.Cache, error) {
		return o.Git.Fetch(ctx, o.GitURL(repo.Owner, config.OrgRepository), gitstore.BranchRefSpec(branch))
	}}
	if err := s.loadConfig(ctx, o.Configs, o.Limits); err != nil {
		return nil, err
	}
	return s, nil
}

// loadConfig reads .github/porchbot.yaml from the default branch first
// (to learn packages.deploymentBranch), then from the deployment branch.
// A broken file leaves in force the newest version in the branch's history
// that passes: derived from the repository, so every replica and every
// restart agrees (the cache only saves walking the history again).
func (s *Session) loadConfig(ctx context.Context, cache *config.Cache, limits config.ServerLimits) error {
	branch := s.Repo.DefaultBranch
	rc, err := s.readConfig(ctx, branch, cache, limits)
	if err != nil {
		return err
	}
	s.ConfigFound = rc.found
	if d := rc.cfg.Packages.DeploymentBranch; d != "" && d != branch {
		branch = d
		if rc, err = s.readConfig(ctx, branch, cache, limits); err != nil {
			return err
		}
	}
	s.DeploymentBranch, s.DeploymentHead, s.ConfigSHA = branch, rc.head, rc.head
	s.Config, s.ConfigErr, s.ConfigInForce = rc.cfg, rc.err, rc.inForce
	if rc.err != nil {
		cache.StoreLastGood(s.Repo.FullName(), rc.head.String(), hashString(rc.inForce), rc.cfg)
		s.Log.WithError(rc.err).WithField("config_in_force", s.ConfigVersion()).
			Warn("repository config is broken; the last good version applies")
	} else {
		cache.Store(s.Repo.FullName(), rc.head.String(), rc.cfg)
	}
	return nil
}

// readConfigResult is the configuration in force on one branch.
type readConfigResult struct {
	cfg     *config.Config
	head    plumbing.Hash
	inForce plumbing.Hash // the commit whose version cfg is
	err     error         // the head's file is broken
	found   bool          // the head has the file (good or broken)
}

// readConfig reads and parses the config at the head of branch. A missing
// branch (empty repository) or file means the defaults; a broken file the
// last good version in the branch's history.
func (s *Session) readConfig(ctx context.Context, branch string, cache *config.Cache, limits config.ServerLimits) (readConfigResult, error) {
	head, err := s.ResolveRef(ctx, "refs/heads/"+branch)
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) || errors.Is(err, gitstore.ErrNotFound) {
			return readConfigResult{cfg: config.DefaultFor(limits)}, nil
		}
		return readConfigResult{}, fmt.Errorf("resolve %s: %w", branch, err)
	}
	data, ok, err := s.ReadFile(ctx, head, config.Path)
	if err != nil {
		return readConfigResult{}, err
	}
	if !ok {
		return readConfigResult{cfg: config.DefaultFor(limits), head: head, inForce: head}, nil
	}
	cfg, _, perr := s.ParseConfig(ctx, data, limits)
	if perr == nil {
		return readConfigResult{cfg: cfg, head: head, inForce: head, found: true}, nil
	}
	out := readConfigResult{head: head, err: perr, found: true}
	if good, sha, ok := cache.LastGood(s.Repo.FullName(), head.String()); ok {
		out.cfg, out.inForce = good, plumbing.NewHash(sha)
		return out, nil
	}
	if out.cfg, out.inForce, err = s.lastGoodConfig(ctx, head, limits); err != nil {
		return readConfigResult{}, fmt.Errorf("last good config on %s: %w", branch, err)
	}
	return out, nil
}

// hashString is h's hex, or "" for the zero hash.
func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// ReadFile reads one file at a commit; ok is false when it is absent.
func (s *Session) ReadFile(ctx context.Context, commit plumbing.Hash, path string) ([]byte, bool, error) {
	if r, ok := s.snap.shared().file(commit, path); ok {
		return r.data, r.ok, nil
	}
	data, ok, err := s.Git.ReadFile(ctx, commit, path)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
			// No such directory, or no such commit in the cache yet: absent,
			// and not remembered (a fetch may bring the commit).
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read %s at %s: %w", path, commit, err)
	}
	s.snap.shared().keepFile(commit, path, data, ok)
	return data, ok, nil
}

// DownstreamRegistry gives the downstream packages known to track any
// package of the session's repository (bot.App.TrackingDownstreams: the
// App's registry, kept by resync and by pushes that change a Kptfile; no
// REST call).
type DownstreamRegistry interface {
	TrackingDownstreams(ctx context.Context, s *Session) []downstreams.Downstream
	// DownstreamsKnown says whether the registry knows which packages of
	// repository track others (downstreams.Registry.Known): if not, the
	// index keeps the downstreams it last listed there.
	DownstreamsKnown(repository string) bool
	// DownstreamsComplete says whether a resync pass over every installed
	// repository has finished with every repository known
	// (downstreams.Registry.Complete): until then a repository never
	// visited may track any package, so what the registry lists may be
	// partial.
	DownstreamsComplete() bool
}
