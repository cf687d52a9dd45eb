package discovery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/metrics"
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

// Discovery is downstream discovery over the App's registry: cheap to
// make (the App makes one per call, bot.App.discovery).
type Discovery struct {
	Registry *downstreams.Registry
	Opener   *core.Opener
	// Flows' visibility cache spares a call (nil: none).
	Flows *flow.Checker
	// Metrics counts the upstreams skipped (nil: none).
	Metrics *metrics.Metrics
	Log     logrus.FieldLogger
}

// IndexDownstreams records the packages of the session's deployment head
// that track an upstream on this GitHub host in a repository where the App
// is installed, replacing what the registry knew of the repository. Others
// are skipped, each with a log line and metrics.UpstreamsSkipped. Resync
// calls it (resync.DownstreamHooks), and so does a push to the
// deployment branch that changes a Kptfile.
func (d Discovery) Index(ctx context.Context, s *core.Session) error {
	found, err := updates.DeploymentDownstreams(ctx, s)
	if err != nil && found == nil {
		return err
	}
	host := d.Host()
	known := true // every fact read: no look-up refused or failed
	installed := map[string]bool{}
	kept := make([]downstreams.Downstream, 0, len(found))
	for _, p := range found {
		id, perr := downstreams.ParseRepoURL(p.Upstream.Repo)
		switch {
		case perr != nil:
			d.skipUpstream(s.Log, p, skipNotRemote, perr)
			continue
		case id.Host != host:
			d.skipUpstream(s.Log, p, skipOtherHost, nil)
			continue
		}
		owner, name := id.OwnerName()
		full := owner + "/" + name
		ok, seen := installed[full]
		if !seen {
			var ierr error
			ok, ierr = d.upstreamInstalled(ctx, full)
			installed[full] = ok
			known = known && (ierr == nil || isNotFound(ierr))
			if !ok {
				d.skipUpstream(s.Log, p, skipNotInstalled, ierr)
			}
		} else if !ok {
			d.skipUpstream(s.Log, p, skipNotInstalled, nil)
		}
		if ok {
			kept = append(kept, p)
		}
	}
	public, verr := d.publicForIndex(ctx, s, kept)
	for i := range kept {
		kept[i].Public = public
	}
	if known && verr == nil {
		d.Registry.Replace(s.Repo.FullName(), kept)
	} else {
		// A refused or failed look-up: the index keeps what it said of
		// this repository until a visit knows it all.
		d.Registry.ReplaceUnknown(s.Repo.FullName(), kept)
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
func (d Discovery) publicForIndex(ctx context.Context, s *core.Session, kept []downstreams.Downstream) (bool, error) {
	url := d.Opener.GitURL(s.Repo.Owner, s.Repo.Name)
	self, err := downstreams.ParseRepoURL(url)
	if err != nil || s.Hub == nil {
		return false, nil
	}
	for _, p := range kept {
		if id, err := downstreams.ParseRepoURL(p.Upstream.Repo); err == nil && id.String() != self.String() {
			if d.Flows != nil { // the resync's listing of the installation's repositories said it
				if v := d.Flows.Visibilities.Get(s.Repo.Owner, s.Repo.Name); v != flow.Unknown {
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

// DownstreamsOf returns the downstream packages, in installed repositories,
// of the package at dir of the upstream repository (owner/name on this
// GitHub host, whose installation is upstream.InstallationID). A downstream
// whose installation cannot read the upstream repository is skipped, with
// a log line and metrics.UpstreamsSkipped.
func (d Discovery) Of(ctx context.Context, upstream core.Repo, dir string) []downstreams.Downstream {
	found := d.Registry.Find(d.Opener.GitURL(upstream.Owner, upstream.Name), dir)
	readable := map[int64]bool{upstream.InstallationID: true}
	out := found[:0:0]
	for _, p := range found {
		ok, seen := readable[p.InstallationID]
		if !seen {
			var err error
			ok, err = d.installationReads(ctx, p.InstallationID, upstream)
			readable[p.InstallationID] = ok
			if !ok {
				d.skipUpstream(d.Log, p, skipUnreadable, err)
				continue
			}
		} else if !ok {
			d.skipUpstream(d.Log, p, skipUnreadable, nil)
			continue
		}
		out = append(out, p)
	}
	return out
}

// installationReads: can installation id read the upstream repository?
func (d Discovery) installationReads(ctx context.Context, id int64, upstream core.Repo) (bool, error) {
	gh, err := d.Opener.Clients.Installation(ctx, id)
	if err != nil {
		return false, err
	}
	if _, err := gh.GetRepository(ctx, upstream.Owner, upstream.Name); err != nil {
		return false, err
	}
	return true, nil
}

// upstreamInstalled: is the App installed on owner/name?
func (d Discovery) upstreamInstalled(ctx context.Context, fullName string) (bool, error) {
	ri, ok := d.Opener.Clients.(repoInstallations)
	if !ok {
		return true, nil // no way to tell: the lookup's read check still applies
	}
	if _, err := ri.InstallationIDForRepo(ctx, fullName); err != nil {
		return false, err
	}
	return true, nil
}

// gitHost is the identity host of this GitHub's repositories.
func (d Discovery) Host() string {
	id, err := downstreams.ParseRepoURL(d.Opener.GitURL("o", "r"))
	if err != nil {
		return ""
	}
	return id.Host
}

func (d Discovery) skipUpstream(log logrus.FieldLogger, p downstreams.Downstream, reason string, err error) {
	if d.Metrics != nil {
		d.Metrics.UpstreamsSkipped.WithLabelValues(reason).Inc()
	}
	e := log.WithFields(logrus.Fields{"downstream": p.Repo, "package": p.Package,
		"upstream": strings.TrimSpace(p.Upstream.Repo), "upstream_directory": p.Upstream.Directory, "reason": reason})
	if err != nil {
		e = e.WithError(err)
	}
	e.Info("upstream skipped by downstream discovery")
}
