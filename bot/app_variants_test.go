package bot

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/internal/metrics"
)

// TestVariantMetricsSumUpstreams: porchbot_variant_targets{state} is the
// sum of each upstream's last reconcile; a state an upstream no longer
// has drops to zero.
func TestVariantMetricsSumUpstreams(t *testing.T) {
	m := metrics.New()
	vm := &VariantMetrics{Gauge: m.VariantTargets}
	vm.Targets("acme/catalog", map[string]int{"in step": 3, "pull request open": 1})
	vm.Targets("Acme/Other", map[string]int{"in step": 2})
	if got := testutil.ToFloat64(m.VariantTargets.WithLabelValues("in step")); got != 5 {
		t.Fatalf("in step = %v, want 5", got)
	}
	vm.Targets("ACME/catalog", map[string]int{"in step": 4})
	if got := testutil.ToFloat64(m.VariantTargets.WithLabelValues("in step")); got != 6 {
		t.Fatalf("in step after the second reconcile = %v, want 6", got)
	}
	if got := testutil.ToFloat64(m.VariantTargets.WithLabelValues("pull request open")); got != 0 {
		t.Fatalf("pull request open = %v, want 0", got)
	}
}
