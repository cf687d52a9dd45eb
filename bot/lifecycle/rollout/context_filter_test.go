package rollout

import (
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/config"
)

func TestContextFilter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var f contextFilter
	if f.skips("acme/catalog", "ci/build", now) {
		t.Fatal("an upstream never read is skipped")
	}
	cfg := &config.Config{Updates: config.Updates{Rollouts: []config.Rollout{
		{Package: "a", Success: config.SuccessDeployed, DeploymentContexts: []string{"kustomization/*"}},
		{Package: "b", Success: config.SuccessMerged, DeploymentContexts: []string{"ci/*"}},
	}}}
	f.learn("ACME/catalog", cfg, now)
	if !f.skips("acme/catalog", "ci/build", now) {
		t.Error("a context only a merged-rule rollout names is not skipped")
	}
	if f.skips("acme/catalog", "kustomization/upf/1a2b", now) {
		t.Error("a wanted context is skipped")
	}
	if f.skips("acme/catalog", "ci/build", now.Add(filterTTL)) {
		t.Error("an old reading still skips")
	}
	f.learn("acme/other", &config.Config{}, now)
	if !f.skips("acme/other", "kustomization/x", now) {
		t.Error("an upstream without rollouts wants a report")
	}
}
