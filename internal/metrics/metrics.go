// Package metrics holds the Prometheus collectors porchbot exports on
// GET /metrics. Every collector lives on its own registry (never the global
// one) so tests and several servers in one process do not collide.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric name.
const Namespace = "porchbot"

// Metrics is the set of collectors the server updates.
type Metrics struct {
	Registry *prometheus.Registry

	// Deliveries counts webhook deliveries by event and outcome: at
	// ingress queued, ping, ignored, duplicate, unauthorized, too_large,
	// bad_request, queue_full, unavailable; in the workers processed,
	// failed, panicked, dropped (see bot/ingress/outcome.go).
	Deliveries *prometheus.CounterVec
	// QueueDepth is the number of events waiting or running.
	QueueDepth prometheus.Gauge
	// HandlerDuration observes how long handlers take, by event.
	HandlerDuration *prometheus.HistogramVec
	// GitHubCalls counts GitHub API calls by endpoint template, method and status.
	GitHubCalls *prometheus.CounterVec
	// RateLimitRemaining is the last x-ratelimit-remaining seen, by resource.
	RateLimitRemaining *prometheus.GaugeVec
	// GitOperations counts git transport operations (fetch, push) by outcome.
	GitOperations *prometheus.CounterVec
	// UpdatePRs counts update pull request outcomes of upstream publishes
	// and /porch upgrade, by state (opened, refreshed, current, waiting,
	// held, declined, up-to-date, refused, failed; variant: left to the
	// variant that owns the package).
	UpdatePRs *prometheus.CounterVec
	// UpdateQueueDepth is the number of downstream packages whose update
	// is still to be made in the fan-outs under way.
	UpdateQueueDepth prometheus.Gauge
	// UpstreamsSkipped counts downstream packages left out of update
	// discovery, by reason: not_remote (a local path), other_host (not on
	// this GitHub host), not_installed (the App is not installed on the
	// upstream repository), unreadable (the downstream's installation
	// cannot read the upstream).
	UpstreamsSkipped *prometheus.CounterVec
	// Renders and RenderDuration count finished porchbot/render runs and
	// their time, by conclusion.
	Renders        *prometheus.CounterVec
	RenderDuration *prometheus.HistogramVec
	// Publishes counts revisions published and landings refused.
	Publishes *prometheus.CounterVec
	// UpdateFanoutDuration times the update fan-out of a publish.
	UpdateFanoutDuration prometheus.Histogram
	// VariantReconciles and VariantReconcileDuration count and time the
	// reconciles of a repository's variants, by outcome.
	VariantReconciles        *prometheus.CounterVec
	VariantReconcileDuration prometheus.Histogram
	// ResyncYields counts repositories a resync pass left for the next one
	// because their installation's REST budget was low.
	ResyncYields prometheus.Counter
	// DashboardSyncs counts syncs of the "Package dashboard" issue, by
	// outcome (created, edited, reopened, closed, unchanged, put_off,
	// stays_closed, missing, failed).
	DashboardSyncs *prometheus.CounterVec
	// VariantTargets is the number of variant target packages in each
	// state (in step, pull request open, waiting for limit, failed, paused,
	// not owned, not installed, planned), over every upstream repository's
	// last reconcile.
	VariantTargets *prometheus.GaugeVec
	// WebhookRedeliveries counts the App's failed webhook deliveries the
	// redeliverer (internal/redeliver) handled, by outcome: redelivered,
	// failed (GitHub refused the request), exhausted (redelivered too
	// often already), budget (left to the next pass).
	WebhookRedeliveries *prometheus.CounterVec
}

// New returns collectors registered on a fresh registry, together with the
// Go runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "webhook_deliveries_total",
			Help: "Webhook deliveries received, by event and outcome.",
		}, []string{"event", "outcome"}),
		QueueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "queue_depth",
			Help: "Events queued or being handled.",
		}),
		HandlerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "handler_duration_seconds",
			Help:    "Time spent handling one event, by event.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 9),
		}, []string{"event"}),
		GitHubCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "github_api_calls_total",
			Help: "GitHub API calls, by endpoint template, method and status code.",
		}, []string{"endpoint", "method", "status"}),
		RateLimitRemaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "github_rate_limit_remaining",
			Help: "Last x-ratelimit-remaining seen, by rate-limit resource.",
		}, []string{"resource"}),
		GitOperations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "git_operations_total",
			Help: "git transport operations, by operation and outcome.",
		}, []string{"operation", "outcome"}),
		UpdatePRs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "update_prs",
			Help: "Update pull request outcomes of upstream publishes, by state.",
		}, []string{"state"}),
		UpdateQueueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "update_queue_depth",
			Help: "Downstream package updates waiting in the fan-outs under way.",
		}),
		UpstreamsSkipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "upstreams_skipped_total",
			Help: "Downstream packages whose upstream update discovery skipped, by reason.",
		}, []string{"reason"}),
		Renders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "renders_total",
			Help: "porchbot/render runs finished, by conclusion (success, failure, cancelled, ...).",
		}, []string{"conclusion"}),
		RenderDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "render_duration_seconds",
			Help:    "Time from a porchbot/render run's start to its conclusion, by conclusion.",
			Buckets: prometheus.ExponentialBuckets(0.05, 3, 9),
		}, []string{"conclusion"}),
		Publishes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "publishes_total",
			Help: "Landings porchbot judged on publish: revisions published, landings refused.",
		}, []string{"outcome"}),
		UpdateFanoutDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "update_fanout_duration_seconds",
			Help:    "Time of the update fan-out of one publish (every downstream's update pull request).",
			Buckets: prometheus.ExponentialBuckets(0.1, 3, 9),
		}),
		VariantReconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "variant_reconciles_total",
			Help: "Reconciles of a repository's variants, by outcome (ok, failed).",
		}, []string{"outcome"}),
		VariantReconcileDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "variant_reconcile_duration_seconds",
			Help:    "Time of one reconcile of a repository's variants.",
			Buckets: prometheus.ExponentialBuckets(0.1, 3, 9),
		}),
		ResyncYields: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "resync_yielded_repositories_total",
			Help: "Repositories a resync pass left for the next one: their installation's REST budget was low (user-facing work first).",
		}),
		DashboardSyncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "dashboard_syncs_total",
			Help: "Syncs of the Package dashboard issue, by outcome.",
		}, []string{"outcome"}),
		WebhookRedeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "webhook_redeliveries_total",
			Help: "Failed webhook deliveries GitHub was asked to redeliver, or left alone, by outcome.",
		}, []string{"outcome"}),
		VariantTargets: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "variant_targets",
			Help: "Variant target packages, by state, as the last reconcile of each upstream repository found them.",
		}, []string{"state"}),
	}
	reg.MustRegister(m.WebhookRedeliveries, m.DashboardSyncs, m.Deliveries, m.QueueDepth, m.HandlerDuration, m.GitHubCalls,
		m.RateLimitRemaining, m.GitOperations, m.UpdatePRs, m.UpdateQueueDepth, m.UpstreamsSkipped, m.VariantTargets, m.ResyncYields,
		m.Renders, m.RenderDuration, m.Publishes, m.UpdateFanoutDuration, m.VariantReconciles, m.VariantReconcileDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
