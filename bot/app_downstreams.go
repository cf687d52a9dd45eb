package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/packages"
)

// Reasons an upstream is skipped (metrics.UpstreamsSkipped).
const (
	skipNotRemote    = "not_remote"
	skipOtherHost    = "other_host"
	skipNotInstalled = "not_installed"
	skipUnreadable   = "unreadable"
)

// repoInstallations finds the App installation of a repository
// (internal/github.Clients).
type repoInstallations interface {
	InstallationIDForRepo(ctx context.Context, fullName string) (int64, error)
}

// pushPayloadCommits is how many commits a push payload lists at most;
// a push of more may change a Kptfile the payload does not show.
const pushPayloadCommits = 20

// IndexDownstreams records the packages of the session's deployment head
// that track an upstream on this GitHub host in a repository where the App
// is installed, replacing what the registry knew of the repository. Others
// are skipped, each with a log line and metrics.UpstreamsSkipped. Resync
// calls it (resync.DownstreamHooks), and so does a push to the
// deployment branch that changes a Kptfile.
func (a *App) IndexDownstreams(ctx context.Context, s *core.Session) error {
	found, err := updates.DeploymentDownstreams(ctx, s)
	if err != nil && found == nil {
		return err
	}
	host := a.gitHost()
	known := true // every fact read: no look-up refused or failed
	installed := map[string]bool{}
	kept := make([]downstreams.Downstream, 0, len(found))
	for _, d := range found {
		id, perr := downstreams.ParseRepoURL(d.Upstream.Repo)
		switch {
		case perr != nil:
			a.skipUpstream(s.Log, d, skipNotRemote, perr)
			continue
		case id.Host != host:
			a.skipUpstream(s.Log, d, skipOtherHost, nil)
			continue
		}
		owner, name := id.OwnerName()
		full := owner + "/" + name
		ok, seen := installed[full]
		if !seen {
			var ierr error
			ok, ierr = a.upstreamInstalled(ctx, full)
			installed[full] = ok
			known = known && (ierr == nil || isNotFound(ierr))
			if !ok {
				a.skipUpstream(s.Log, d, skipNotInstalled, ierr)
			}
		} else if !ok {
			a.skipUpstream(s.Log, d, skipNotInstalled, nil)
		}
		if ok {
			kept = append(kept, d)
		}
	}
	public, verr := a.publicForIndex(ctx, s, kept)
	for i := range kept {
		kept[i].Public = public
	}
	if known && verr == nil {
		a.registry().Replace(s.Repo.FullName(), kept)
	} else {
		// A refused or failed look-up: the index keeps what it said of
		// this repository until a visit knows it all.
		a.registry().ReplaceUnknown(s.Repo.FullName(), kept)
	}
	s.Log.WithFields(logrus.Fields{"downstream_packages": len(kept), "skipped": len(found) - len(kept),
		"facts_known": known && verr == nil}).Debug("downstream packages indexed")
	return err
}

// isNotFound: GitHub answered 404 (an upstream the App is not installed on).
func isNotFound(err error) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusNotFound
}

// publicForIndex: is the session's repository public, so that other
// repositories' package indexes may name its packages as downstreams? One
// REST call, made only when a package tracks another repository (a
// repository's own packages are named in its index whatever its
// visibility), unless the flow rule's cache knows it. False on failure, with the error: not named, and the
// repository's facts are unknown.
func (a *App) publicForIndex(ctx context.Context, s *core.Session, kept []downstreams.Downstream) (bool, error) {
	url := a.Opener.GitURL(s.Repo.Owner, s.Repo.Name)
	self, err := downstreams.ParseRepoURL(url)
	if err != nil || s.Hub == nil {
		return false, nil
	}
	for _, d := range kept {
		if id, err := downstreams.ParseRepoURL(d.Upstream.Repo); err == nil && id.String() != self.String() {
			if a.Flows != nil { // the resync's listing of the installation's repositories said it
				if v := a.Flows.Visibilities.Get(s.Repo.Owner, s.Repo.Name); v != flow.Unknown {
					return v == flow.Public, nil
				}
			}
			info, err := s.Hub.GetRepository(ctx, s.Repo.Owner, s.Repo.Name)
			if err != nil {
				s.Log.WithError(err).Info("repository visibility unknown: other repositories' indexes keep what they said of its packages")
				return false, fmt.Errorf("visibility of %s: %w", s.Repo.FullName(), err)
			}
			return info.Visibility == "public" || info.Visibility == "" && !info.Private, nil
		}
	}
	return false, nil
}

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

// DownstreamsOf returns the downstream packages, in installed repositories,
// of the package at dir of the upstream repository (owner/name on this
// GitHub host, whose installation is upstream.InstallationID). A downstream
// whose installation cannot read the upstream repository is skipped, with
// a log line and metrics.UpstreamsSkipped.
func (a *App) DownstreamsOf(ctx context.Context, upstream core.Repo, dir string) []downstreams.Downstream {
	found := a.registry().Find(a.Opener.GitURL(upstream.Owner, upstream.Name), dir)
	readable := map[int64]bool{upstream.InstallationID: true}
	out := found[:0:0]
	for _, d := range found {
		ok, seen := readable[d.InstallationID]
		if !seen {
			var err error
			ok, err = a.installationReads(ctx, d.InstallationID, upstream)
			readable[d.InstallationID] = ok
			if !ok {
				a.skipUpstream(a.logger(), d, skipUnreadable, err)
				continue
			}
		} else if !ok {
			a.skipUpstream(a.logger(), d, skipUnreadable, nil)
			continue
		}
		out = append(out, d)
	}
	return out
}

// installationReads: can installation id read the upstream repository?
func (a *App) installationReads(ctx context.Context, id int64, upstream core.Repo) (bool, error) {
	gh, err := a.Opener.Clients.Installation(ctx, id)
	if err != nil {
		return false, err
	}
	if _, err := gh.GetRepository(ctx, upstream.Owner, upstream.Name); err != nil {
		return false, err
	}
	return true, nil
}

// upstreamInstalled: is the App installed on owner/name?
func (a *App) upstreamInstalled(ctx context.Context, fullName string) (bool, error) {
	ri, ok := a.Opener.Clients.(repoInstallations)
	if !ok {
		return true, nil // no way to tell: the lookup's read check still applies
	}
	if _, err := ri.InstallationIDForRepo(ctx, fullName); err != nil {
		return false, err
	}
	return true, nil
}

// gitHost is the identity host of this GitHub's repositories.
func (a *App) gitHost() string {
	id, err := downstreams.ParseRepoURL(a.Opener.GitURL("o", "r"))
	if err != nil {
		return ""
	}
	return id.Host
}

func (a *App) skipUpstream(log logrus.FieldLogger, d downstreams.Downstream, reason string, err error) {
	if a.Metrics != nil {
		a.Metrics.UpstreamsSkipped.WithLabelValues(reason).Inc()
	}
	e := log.WithFields(logrus.Fields{"downstream": d.Repo, "package": d.Package,
		"upstream": strings.TrimSpace(d.Upstream.Repo), "upstream_directory": d.Upstream.Directory, "reason": reason})
	if err != nil {
		e = e.WithError(err)
	}
	e.Info("upstream skipped by downstream discovery")
}

func (a *App) logger() logrus.FieldLogger {
	if a.Log != nil {
		return a.Log
	}
	return logrus.StandardLogger()
}
