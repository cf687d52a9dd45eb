package rollout

import (
	"context"
	"strings"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/rollout"
)

// facts are what one planning pass of a package's rollout knows.
type facts struct {
	spec     rollout.Spec
	revision int                               // the package's latest published revision
	ds       []rollout.Downstream              // in the planner's terms
	found    map[string]downstreams.Downstream // by rollout.Key
	installs map[string]int64                  // downstream repository → installation
}

// SpecOf is the planner's spec of a configured rollout.
func SpecOf(r config.Rollout) rollout.Spec {
	s := rollout.Spec{Package: r.Package, RequireDeployment: r.Success != config.SuccessMerged}
	for _, w := range r.Waves {
		s.Waves = append(s.Waves, rollout.Wave{Name: w.Name, MaxInProgress: w.MaxInProgress, Soak: w.Soak,
			Select: rollout.Selector{Repositories: w.Repositories, Topic: w.Topic, Labels: w.Labels}})
	}
	return s
}

// usesTopics says whether a wave selects by topic.
func usesTopics(r config.Rollout) bool {
	for _, w := range r.Waves {
		if w.Topic != "" {
			return true
		}
	}
	return false
}

// gather reads the facts of pkg's rollout in the upstream session s: its
// latest revision (git), its downstreams (the registry) and the revision
// each holds (their Kptfile's upstream lock), and, when a wave selects by
// topic, the topics of the upstream installation's repositories (a
// listing, 100 repositories a call; a downstream of another installation
// has none).
func (c *Controller) gather(ctx context.Context, s *core.Session, pkg string, r config.Rollout) (facts, error) {
	f := facts{spec: SpecOf(r), found: map[string]downstreams.Downstream{}, installs: map[string]int64{}}
	revs, err := proposals.PublishedRevisions(ctx, s, pkg)
	if err != nil {
		return f, err
	}
	f.revision = packages.Latest(revs)
	found := c.Finder.DownstreamsOf(ctx, s.Repo, core.PackageDir(s.Config.Packages.Root, pkg))
	var topics map[string][]string
	if usesTopics(r) && c.Topics != nil {
		var repos []string
		for _, d := range found {
			if d.InstallationID == s.Repo.InstallationID {
				repos = append(repos, d.Repo)
			}
		}
		topics = c.Topics(ctx, s, repos)
	}
	for _, d := range found {
		if strings.EqualFold(d.Repo, s.Repo.FullName()) && d.Package == pkg {
			continue // names itself as its upstream
		}
		rd := rollout.Downstream{Repo: d.Repo, Package: d.Package, Labels: d.Labels, At: d.TrackedRevision(pkg), Topics: topics[strings.ToLower(d.Repo)]}
		if _, dup := f.found[rd.Key()]; dup {
			continue
		}
		f.found[rd.Key()] = d
		f.installs[d.Repo] = d.InstallationID
		f.ds = append(f.ds, rd)
	}
	return f, nil
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
