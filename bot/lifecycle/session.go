package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gogitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
)

// Repo names a repository and the App installation acting on it.
type Repo struct {
	Owner, Name    string
	InstallationID int64
	// DefaultBranch is the repository's default branch, from the event.
	DefaultBranch string
}

// FullName is "owner/name".
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// Clients gives an installation's GitHub client (internal/github.Clients).
type Clients interface {
	Installation(ctx context.Context, installationID int64) (*github.Client, error)
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
}

// Session is one event's view of a repository: its installation client,
// its git cache (fetched: every branch and tag), and the configuration in
// force, read from the deployment branch (never from a pull request head).
type Session struct {
	Repo   Repo
	GH     *github.Client
	Git    *gitstore.Cache
	Config *config.Config
	// ConfigSHA is the deployment-branch commit the config was read from.
	ConfigSHA plumbing.Hash
	// ConfigErr is set when the deployment branch's config is broken:
	// Config is then the last good one (or the defaults).
	ConfigErr error
	// DeploymentBranch is config packages.deploymentBranch, or the
	// repository's default branch.
	DeploymentBranch string
	// DeploymentHead is the deployment branch's head when fetched.
	DeploymentHead plumbing.Hash
	Log            logrus.FieldLogger
}

// Open fetches the repository (branches and tags) and reads its config.
func (o *Opener) Open(ctx context.Context, repo Repo) (*Session, error) {
	gh, err := o.Clients.Installation(ctx, repo.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("open %s: installation client: %w", repo.FullName(), err)
	}
	cache, err := o.Git.Fetch(ctx, o.GitURL(repo.Owner, repo.Name), gitstore.BranchesRefSpec, gitstore.TagsRefSpec)
	if err != nil {
		return nil, fmt.Errorf("open %s: fetch: %w", repo.FullName(), err)
	}
	log := o.Logger
	if log == nil {
		log = logrus.StandardLogger()
	}
	s := &Session{Repo: repo, GH: gh, Git: cache, Log: log.WithField("repository", repo.FullName())}
	if err := s.loadConfig(ctx, o.Configs, o.Limits); err != nil {
		return nil, err
	}
	return s, nil
}

// loadConfig reads .github/porchbot.yaml from the default branch first
// (to learn packages.deploymentBranch), then from the deployment branch.
func (s *Session) loadConfig(ctx context.Context, cache *config.Cache, limits config.ServerLimits) error {
	branch := s.Repo.DefaultBranch
	cfg, sha, cfgErr, err := s.readConfig(ctx, branch, limits)
	if err != nil {
		return err
	}
	if cfgErr == nil && cfg.Packages.DeploymentBranch != "" && cfg.Packages.DeploymentBranch != branch {
		branch = cfg.Packages.DeploymentBranch
		if cfg, sha, cfgErr, err = s.readConfig(ctx, branch, limits); err != nil {
			return err
		}
	}
	s.DeploymentBranch, s.DeploymentHead, s.ConfigSHA = branch, sha, sha
	if cfgErr != nil {
		s.ConfigErr = cfgErr
		if good, _ := cache.Good(s.Repo.FullName()); good != nil {
			cfg = good
		} else {
			cfg = config.DefaultFor(limits)
		}
		s.Log.WithError(cfgErr).Warn("repository config is broken; using the last good one")
	} else {
		cache.Store(s.Repo.FullName(), sha.String(), cfg)
	}
	s.Config = cfg
	return nil
}

// readConfig reads and parses the config at the head of branch. A missing
// branch (empty repository) or file means the defaults.
func (s *Session) readConfig(ctx context.Context, branch string, limits config.ServerLimits) (*config.Config, plumbing.Hash, error, error) {
	head, err := s.Git.ResolveRef(ctx, "refs/heads/"+branch)
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) || errors.Is(err, gitstore.ErrNotFound) {
			return config.DefaultFor(limits), plumbing.ZeroHash, nil, nil
		}
		return nil, plumbing.ZeroHash, nil, fmt.Errorf("resolve %s: %w", branch, err)
	}
	data, ok, err := s.ReadFile(ctx, head, config.Path)
	if err != nil {
		return nil, head, nil, err
	}
	if !ok {
		return config.DefaultFor(limits), head, nil, nil
	}
	cfg, perr := config.Parse(config.Path, data, limits)
	return cfg, head, perr, nil
}

// ReadFile reads one file at a commit; ok is false when it is absent.
func (s *Session) ReadFile(ctx context.Context, commit plumbing.Hash, path string) ([]byte, bool, error) {
	dir, name := "", path
	if i := strings.LastIndex(path, "/"); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	files, err := s.Git.ReadTree(ctx, commit, dir)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read %s at %s: %w", path, commit, err)
	}
	data, ok := files[name]
	return data, ok, nil
}
