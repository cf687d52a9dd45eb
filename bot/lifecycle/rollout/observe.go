package rollout

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/rollout"
)

// DeploymentReport is what a deployer posted on a downstream commit: a
// commit status, a check run, or a GitHub deployment's status (Context
// "deployment/<environment>").
type DeploymentReport struct {
	SHA     string
	Context string
	// State is rollout.Success, rollout.Failure or rollout.Pending.
	State       string
	At          time.Time
	URL         string
	Description string
}

// maxObservedUpstreams bounds the upstream repositories one report is
// looked up in (a repository's packages may track many).
const maxObservedUpstreams = 20

// Observe records a deployment report on a commit of a downstream
// repository in the rollouts it concerns: those of the upstream packages
// that its packages track (tracked, from the registry), whose rollout
// requires a deployment and names the report's context. The downstream
// repository is opened (open) only when one does: a CI's status costs a
// look at the upstreams' configuration. The commit must be on the
// downstream's deployment branch; the revision it reports on is the one
// its package's Kptfile holds there. A rollout whose record changed is
// stepped. No REST call: git reads, and the upstreams' sessions.
func (c *Controller) Observe(ctx context.Context, open func(context.Context) (*core.Session, error), tracked []downstreams.Downstream, rep DeploymentReport) error {
	sha := plumbing.NewHash(rep.SHA)
	if sha.IsZero() || rep.Context == "" || c == nil || c.Fanout == nil || c.Fanout.Open == nil {
		return nil
	}
	byUpstream := map[string][]downstreams.Downstream{}
	var order []string
	for _, d := range tracked {
		id, err := downstreams.ParseRepoURL(d.Upstream.Repo)
		if err != nil {
			continue
		}
		owner, name := id.OwnerName()
		full := owner + "/" + name
		if _, seen := byUpstream[full]; !seen {
			order = append(order, full)
		}
		byUpstream[full] = append(byUpstream[full], d)
	}
	if len(order) > maxObservedUpstreams {
		order = order[:maxObservedUpstreams]
	}
	var ds *core.Session
	var onBranch *bool
	var errs []error
	for _, full := range order {
		if c.wants.skips(full, rep.Context, c.now()) {
			continue
		}
		us, err := c.Fanout.Open(ctx, full)
		if err != nil {
			continue // not installed, not readable: no rollout of ours
		}
		c.wants.learn(full, us.Config, c.now())
		for _, d := range byUpstream[full] {
			upkg := UpstreamPackage(us, d.Upstream.Directory)
			r, ok := us.Config.RolloutOf(upkg)
			if !ok || !SpecOf(r).RequireDeployment || !rollout.MatchContext(r.DeploymentContexts, rep.Context) {
				continue
			}
			if ds == nil {
				if ds, err = open(ctx); err != nil {
					return err
				}
			}
			if onBranch == nil {
				b, err := onDeploymentBranch(ctx, ds, sha)
				if err != nil {
					return err
				}
				onBranch = &b
			}
			if !*onBranch {
				ds.Log.WithFields(logrus.Fields{"sha": rep.SHA, "context": rep.Context}).Debug("deployment report on a commit not on the deployment branch: ignored")
				return nil
			}
			rev, err := revisionAt(ctx, ds, sha, d, upkg)
			if err != nil || rev == 0 {
				errs = append(errs, err)
				continue
			}
			key := rollout.Key(d.Repo, d.Package)
			changed := false
			_, err = UpdateRecord(ctx, us, upkg, fmt.Sprintf("%s reported %s on %s", rep.Context, rep.State, key), c.now(), func(rec *rollout.Record) bool {
				changed = rec.Observe(key, rep.Context, rollout.Report{Revision: rev, State: rep.State, At: rep.At, URL: rep.URL, Description: rep.Description})
				return changed
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			us.Log.WithFields(logrus.Fields{"package": upkg, "downstream": d.Repo, "downstream_package": d.Package, "context": rep.Context,
				"state": rep.State, "revision": rev, "changed": changed}).Info("rollout: deployment report")
			if changed {
				if _, err := c.Step(ctx, us, upkg); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// UpstreamPackage is the package name, in us, of the directory dir.
func UpstreamPackage(us *core.Session, dir string) string {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if root := strings.Trim(us.Config.Packages.Root, "/"); root != "" && root != "." {
		dir = strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
	}
	return dir
}

// onDeploymentBranch says whether commit is the deployment head of ds or
// one of its ancestors.
func onDeploymentBranch(ctx context.Context, ds *core.Session, commit plumbing.Hash) (bool, error) {
	if ds.DeploymentHead.IsZero() {
		return false, nil
	}
	if commit == ds.DeploymentHead {
		return true, nil
	}
	on := false
	err := ds.Git.With(ctx, func(r *git.Repository) error {
		c, err := r.CommitObject(commit)
		if err != nil {
			return nil // not in the cache: not on the branch it fetched
		}
		head, err := r.CommitObject(ds.DeploymentHead)
		if err != nil {
			return fmt.Errorf("deployment head %s: %w", ds.DeploymentHead, err)
		}
		on, err = c.IsAncestor(head)
		return err
	})
	return on, err
}

// revisionAt is the revision of upstream package upkg that d's Kptfile
// holds at commit (0: another upstream, or none porchbot recognises).
func revisionAt(ctx context.Context, ds *core.Session, commit plumbing.Hash, d downstreams.Downstream, upkg string) (int, error) {
	file := path.Join(d.Dir, kptfile.FileName)
	data, ok, err := ds.ReadFile(ctx, commit, file)
	if err != nil || !ok {
		return 0, err
	}
	kf, err := kptfile.ParseFile(file, data)
	if err != nil {
		return 0, nil
	}
	k := kf.Kptfile()
	if k.Upstream == nil || k.Upstream.Git == nil || downstreams.NormalizeDir(k.Upstream.Git.Directory) != downstreams.NormalizeDir(d.Upstream.Directory) {
		return 0, nil
	}
	if a, b := k.Upstream.Git.Repo, d.Upstream.Repo; a != b {
		ia, ea := downstreams.ParseRepoURL(a)
		ib, eb := downstreams.ParseRepoURL(b)
		if ea != nil || eb != nil || ia.String() != ib.String() {
			return 0, nil
		}
	}
	at := downstreams.Downstream{Upstream: *k.Upstream.Git}
	if k.UpstreamLock != nil && k.UpstreamLock.Git != nil {
		at.Lock = k.UpstreamLock.Git
	}
	return at.TrackedRevision(upkg), nil
}
