package bot

import (
	"context"
	"sync"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
)

// The App's measures of its work (docs/operations.md, "Metrics"): renders
// seen through their check runs, publishes, update fan-outs and variant
// reconciles timed where the App starts them.

// renderMeter counts and times the porchbot/render runs written through
// it: a run is timed from its creation to the update that concludes it,
// and a failed render is logged with its summary and duration.
type renderMeter struct {
	rendercheck.CheckRunAPI
	app     *App
	s       *core.Session
	mu      sync.Mutex
	started map[int64]time.Time
}

func (a *App) meterRenders(s *core.Session, api rendercheck.CheckRunAPI) rendercheck.CheckRunAPI {
	if a.Metrics == nil {
		return api
	}
	return &renderMeter{CheckRunAPI: api, app: a, s: s, started: map[int64]time.Time{}}
}

func (m *renderMeter) CreateCheckRun(ctx context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error) {
	start := time.Now()
	run, err := m.CheckRunAPI.CreateCheckRun(ctx, owner, repo, w)
	if err != nil || w.Name != core.RenderCheckName {
		return run, err
	}
	if w.Conclusion != "" { // written whole: a report with no run of its own
		return run, err
	}
	m.mu.Lock()
	m.started[run.ID] = start
	m.mu.Unlock()
	return run, err
}

func (m *renderMeter) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error) {
	run, err := m.CheckRunAPI.UpdateCheckRun(ctx, owner, repo, id, w)
	conclusion := w.Conclusion
	if err != nil || conclusion == "" {
		return run, err
	}
	m.mu.Lock()
	start, ok := m.started[id]
	delete(m.started, id)
	m.mu.Unlock()
	if !ok {
		return run, err
	}
	d := time.Since(start)
	m.app.Metrics.Renders.WithLabelValues(conclusion).Inc()
	m.app.Metrics.RenderDuration.WithLabelValues(conclusion).Observe(d.Seconds())
	if conclusion != "success" {
		log := m.s.Log.WithField("conclusion", conclusion).WithField("duration", d.Round(time.Millisecond).String()).WithField("check_run", id)
		if o := w.Output; o != nil {
			log = log.WithField("reason", o.Title).WithField("summary", o.Summary)
		}
		log.Warn("render did not succeed")
	}
	return run, err
}

// CountPublish counts what a publish decided (the event paths count
// theirs; the service counts the resync's).
func (a *App) CountPublish(out *publish.Outcome) {
	if a.Metrics == nil || out == nil {
		return
	}
	a.Metrics.Publishes.WithLabelValues("published").Add(float64(len(out.Published)))
	a.Metrics.Publishes.WithLabelValues("refused").Add(float64(len(out.Refused)))
}

// timeFanout observes the duration of an update fan-out begun at start.
func (a *App) timeFanout(start time.Time) {
	if a.Metrics != nil {
		a.Metrics.UpdateFanoutDuration.Observe(time.Since(start).Seconds())
	}
}

// reconcileVariants reconciles s's variants (published: the revisions a
// publish just made, nil for a config change or the resync), counted and
// timed.
func (a *App) reconcileVariants(ctx context.Context, s *core.Session, published []publish.PublishedRevision) error {
	start := time.Now()
	_, err := a.Variants.Reconcile(ctx, s, published)
	if a.Metrics != nil {
		outcome := "ok"
		if err != nil {
			outcome = "failed"
		}
		a.Metrics.VariantReconciles.WithLabelValues(outcome).Inc()
		a.Metrics.VariantReconcileDuration.Observe(time.Since(start).Seconds())
	}
	return err
}
