package bot

import (
	"context"
	"strings"
	"sync"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/variant"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/metrics"
)

// Variants (SPEC §7): the repository holding an upstream package reconciles
// its `variants:` entries when it publishes, when a push to its deployment
// branch changes its config, and on every resync (a new topic, a lost
// webhook). The work is variant.Controller's.

// NewVariantController is the App's variant controller: the update
// fan-out's API, render and pacing, target repositories opened as the
// App, candidates from the downstream registry.
func NewVariantController(a *App, m *metrics.Metrics) *variant.Controller {
	c := &variant.Controller{Updates: a.Updates, Open: a.open, Finder: a, Flows: a.Flows}
	if m != nil {
		c.Metrics = &VariantMetrics{Gauge: m.VariantTargets}
	}
	return c
}

// variantsAfterPublish reconciles the variants of the published packages'
// repository.
func (a *App) variantsAfterPublish(ctx context.Context, s *core.Session, out *publish.Outcome) error {
	if a.Variants == nil || out == nil || len(out.Published) == 0 || len(s.Config.Variants) == 0 {
		return nil
	}
	return a.reconcileVariants(ctx, s, out.Published)
}

// variantsOnPush reconciles when a push to the deployment branch may have
// changed the config (an entry added, changed or removed). Failures are
// logged: the resync reconciles again.
func (a *App) variantsOnPush(ctx context.Context, s *core.Session, ev *github.PushEvent) {
	if a.Variants == nil || !pushMayChange(ev, func(p string) bool { return p == config.Path }) {
		return
	}
	if err := a.reconcileVariants(ctx, s, nil); err != nil {
		s.Log.WithError(err).Warn("variants on a config push")
	}
}

// ResyncVariants is the resync's hook: the repository's variants are
// reconciled (lost webhooks, a repository that got the topic since). A
// repository with no entry costs nothing: the removal of its last entry is
// carried out on the config push that removed it.
func (a *App) ResyncVariants(ctx context.Context, s *core.Session) error {
	if a.Variants == nil || len(s.Config.Variants) == 0 {
		return nil
	}
	return a.reconcileVariants(ctx, s, nil)
}

// pushMayChange: a commit of the push touches a path matching match, or
// the push may hold commits its payload does not list.
func pushMayChange(ev *github.PushEvent, match func(path string) bool) bool {
	if ev.GetForced() || ev.GetCreated() || len(ev.Commits) >= pushPayloadCommits {
		return true
	}
	for _, c := range ev.Commits {
		for _, list := range [][]string{c.Added, c.Modified, c.Removed} {
			for _, p := range list {
				if match(p) {
					return true
				}
			}
		}
	}
	return false
}

// VariantMetrics keeps porchbot_variant_targets{state}: the sum over
// upstream repositories of their last reconcile's counts.
type VariantMetrics struct {
	Gauge *prometheus.GaugeVec

	mu sync.Mutex
	by map[string]map[string]int // upstream (lower case) → state → count
}

// Targets records one upstream's counts and sets the gauge.
func (m *VariantMetrics) Targets(upstream string, byState map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string]map[string]int{}
	}
	m.by[strings.ToLower(upstream)] = byState
	total := map[string]int{}
	for _, states := range m.by {
		for s, n := range states {
			total[s] += n
		}
	}
	m.Gauge.Reset()
	for s, n := range total {
		m.Gauge.WithLabelValues(s).Set(float64(n))
	}
}

// Variants is /porch variants: the state of every target of the
// repository's variants, planned and not acted on.
func (o CommandOps) Variants(ctx context.Context, s *core.Session) (*variant.Report, error) {
	if o.App.Variants == nil {
		return &variant.Report{Upstream: s.Repo.FullName()}, nil
	}
	rep, err := o.App.Variants.Status(ctx, s)
	return rep, userError(err)
}
