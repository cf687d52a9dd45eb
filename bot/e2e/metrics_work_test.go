package e2e

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestWorkMetrics (#26 §5): a draft's render and a publish show in
// porchbot's metrics: porchbot_renders_total and its duration by
// conclusion, porchbot_publishes_total.
func TestWorkMetrics(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	m := w.svc.Metrics
	renders := testutil.ToFloat64(m.Renders.WithLabelValues("success"))
	w.pushSixtyPods("drafts/basens/quota")
	if got := testutil.ToFloat64(m.Renders.WithLabelValues("success")); got != renders+1 {
		t.Errorf("porchbot_renders_total{conclusion=success}: %v, want %v", got, renders+1)
	}
	if n := testutil.CollectAndCount(m.RenderDuration); n == 0 {
		t.Error("no porchbot_render_duration_seconds series")
	}
	published := testutil.ToFloat64(m.Publishes.WithLabelValues("published"))
	w.land(repo, "drafts/basens/quota", "Sixty pods")
	if got := testutil.ToFloat64(m.Publishes.WithLabelValues("published")); got != published+1 {
		t.Errorf("porchbot_publishes_total{outcome=published}: %v, want %v", got, published+1)
	}
}
