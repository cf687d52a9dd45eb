package bot

import (
	"context"
	"path"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/discovery"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/packages"
)

// pushPayloadCommits is how many commits a push payload lists at most;
// a push of more may change a Kptfile the payload does not show.
const pushPayloadCommits = 20

// TrackingDownstreams lists the downstream packages the registry knows
// whose upstream is a package of the session's repository, for its package
// index (core.DownstreamRegistry; no REST call).
func (a *App) TrackingDownstreams(_ context.Context, s *core.Session) []downstreams.Downstream {
	return a.registry().Tracking(a.Opener.GitURL(s.Repo.Owner, s.Repo.Name))
}

// DownstreamsKnown says whether this process knows which packages of
// repository track others (core.DownstreamRegistry): it visited it
// with every fact known, or a complete resync pass showed it is not
// installed (downstreams.Registry.Known).
func (a *App) DownstreamsKnown(repository string) bool { return a.registry().Known(repository) }

// DownstreamsComplete says whether a resync pass has shown every
// installed repository's downstream packages (core.DownstreamRegistry,
// downstreams.Registry.Complete).
func (a *App) DownstreamsComplete() bool { return a.registry().Complete() }

var _ resync.PassHooks = (*App)(nil) // the resync loop reports its passes to the registry

// ResyncPassDone tells the registry that a resync pass visited every
// installed repository (resync.PassHooks).
func (a *App) ResyncPassDone(repos []core.Repo) {
	names := make([]string, 0, len(repos))
	for _, r := range repos {
		names = append(names, r.FullName())
	}
	a.registry().PassDone(names)
}

// refreshDownstreamsOnPush indexes the repository again when a push to its
// deployment branch changed a Kptfile (or may have: a forced push, a new
// branch, more commits than the payload lists). Failures are logged: the
// next resync repairs the index.
func (a *App) refreshDownstreamsOnPush(ctx context.Context, s *core.Session, ev *github.PushEvent) {
	if !pushMayChangeKptfile(ev) {
		return
	}
	if err := a.IndexDownstreams(ctx, s); err != nil {
		s.Log.WithError(err).Warn("downstream discovery on push failed")
	}
	a.Rollouts.AfterDownstreamPush(ctx, s)
}

func pushMayChangeKptfile(ev *github.PushEvent) bool {
	return pushMayChange(ev, func(p string) bool { return path.Base(p) == packages.KptfileName })
}

func (a *App) logger() logrus.FieldLogger {
	if a.Log != nil {
		return a.Log
	}
	return logrus.StandardLogger()
}

// discovery is downstream discovery over the App's registry, clients and
// caches (bot/discovery).
func (a *App) discovery() discovery.Discovery {
	return discovery.Discovery{Registry: a.registry(), Opener: a.Opener, Flows: a.Flows, Metrics: a.Metrics, Log: a.logger()}
}

// IndexDownstreams records the packages of the session's deployment head
// that track an upstream in an installed repository of this GitHub
// (discovery.Discovery.Index). The resync calls it
// (resync.DownstreamHooks), and so does a push to the deployment branch
// that changes a Kptfile.
func (a *App) IndexDownstreams(ctx context.Context, s *core.Session) error {
	return a.discovery().Index(ctx, s)
}

// DownstreamsOf returns the downstream packages, in installed
// repositories that can read it, of the package at dir of the upstream
// repository (discovery.Discovery.Of; updates.DownstreamFinder).
func (a *App) DownstreamsOf(ctx context.Context, upstream core.Repo, dir string) []downstreams.Downstream {
	return a.discovery().Of(ctx, upstream, dir)
}

// gitHost is the identity host of this GitHub's repositories.
func (a *App) gitHost() string { return a.discovery().Host() }
