package rollout

import (
	"context"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/rollout"
)

// The resync's repair of lost webhooks: the downstreams an open wave waits
// for that merged the revision but have no healthy report are asked again
// for what their deployment branch's head reports, commit statuses (one
// call, the combined status) and check runs (one call), at most
// maxRereads downstreams a rollout a pass. GitHub Deployments are not
// listed again (their statuses would cost a call per deployment): their
// webhooks are redelivered instead (internal/redeliver).

// maxRereads bounds the downstreams one repair asks again.
const maxRereads = 20

// observation is a deployment report read again, in the record's terms.
type observation struct {
	key, context string
	report       rollout.Report
}

// reread reads again the reports of the merged, unhealthy downstreams of
// plan's open waves.
func (c *Controller) reread(ctx context.Context, s *core.Session, pkg string, r config.Rollout, f facts, plan rollout.Plan) []observation {
	var out []observation
	asked := 0
	at := map[string]int{}
	for _, d := range f.ds {
		at[d.Key()] = d.At
	}
	for _, w := range plan.Waves {
		if w.State != rollout.WaveRolling && w.State != rollout.WaveFailed {
			continue
		}
		for _, key := range w.Awaited {
			d, ok := f.found[key]
			if !ok || at[key] < plan.Revision || asked >= maxRereads {
				continue
			}
			asked++
			ds, err := c.Fanout.Open(ctx, d.Repo)
			if err != nil || ds.Hub == nil || ds.DeploymentHead.IsZero() {
				continue
			}
			rev, err := revisionAt(ctx, ds, ds.DeploymentHead, d, pkg)
			if err != nil || rev != plan.Revision {
				continue
			}
			for _, rep := range headReports(ctx, ds, r) {
				out = append(out, observation{key: key, context: rep.Context, report: rollout.Report{Revision: rev, State: rep.State,
					At: rep.At, URL: rep.URL, Description: rep.Description}})
			}
		}
	}
	if asked > 0 {
		s.Log.WithField("package", pkg).WithField("asked", asked).WithField("reports", len(out)).Info("rollout: deployment reports read again")
	}
	return out
}

// headReports are the reports of r's deployment contexts on ds's
// deployment head: its commit statuses and other Apps' check runs.
func headReports(ctx context.Context, ds *core.Session, r config.Rollout) []DeploymentReport {
	head := ds.DeploymentHead.String()
	var out []DeploymentReport
	if sts, err := ds.Hub.CombinedStatus(ctx, ds.Repo.Owner, ds.Repo.Name, head); err == nil {
		for _, st := range sts {
			state, ok := StatusState(st.State)
			if ok && rollout.MatchContext(r.DeploymentContexts, st.Context) {
				out = append(out, DeploymentReport{SHA: head, Context: st.Context, State: state, At: st.UpdatedAt, URL: st.TargetURL, Description: st.Description})
			}
		}
	} else {
		ds.Log.WithError(err).Debug("rollout: combined status not read")
	}
	runs, _, err := ds.Hub.ListCheckRuns(ctx, ds.Repo.Owner, ds.Repo.Name, head, hub.CheckQuery{Filter: "latest", Page: hub.Page{PerPage: 100}})
	if err != nil {
		ds.Log.WithError(err).Debug("rollout: check runs not read")
		return out
	}
	for _, run := range runs.Runs {
		if strings.HasPrefix(run.Name, "porchbot/") || !rollout.MatchContext(r.DeploymentContexts, run.Name) {
			continue
		}
		state, at, ok := CheckRunState(run.Status, run.Conclusion, run.StartedAt, run.CompletedAt)
		if ok {
			out = append(out, DeploymentReport{SHA: head, Context: run.Name, State: state, At: at, URL: run.HTMLURL, Description: run.Output.Title})
		}
	}
	return out
}
