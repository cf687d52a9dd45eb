package rollout

import (
	"strings"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/rollout"
)

// TestMarkdownNamesOnlyWhatReadersMaySee: a failing private downstream
// that no wave names is counted, never named, in the reason, the failures
// and the waits; its deployer's text is quoted, its URL not a link.
func TestMarkdownNamesOnlyWhatReadersMaySee(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := config.Rollout{Package: "network/upf", Waves: []config.RolloutWave{
		{Name: "canary", Repositories: []string{"acme/edge-lab", "acme/secret-*"}}, {Name: "rest"}}}
	spec := SpecOf(r)
	ds := []rollout.Downstream{{Repo: "acme/edge-lab", Package: "upf", At: 2}, {Repo: "acme/secret-site", Package: "upf", At: 2},
		{Repo: "acme/public-site", Package: "upf", At: 1}}
	rec := rollout.Record{Package: r.Package}
	rec.Observe(rollout.Key("acme/edge-lab", "upf"), "kustomization/upf/x", rollout.Report{Revision: 2, State: rollout.Success, At: now})
	rec.Observe(rollout.Key("acme/secret-site", "upf"), "kustomization/upf/x", rollout.Report{Revision: 2, State: rollout.Failure, At: now,
		Description: "@admins see [here](javascript:alert(1))", URL: "https://flux.example.com/secret-site"})
	plan := rollout.Decide(spec, 2, ds, rec, now)
	if plan.State != rollout.Stopped {
		t.Fatalf("plan %s: %s", plan.State, plan.Reason)
	}
	md := Markdown(&plan, NameableIn(r, func(repo string) bool { return repo == "acme/public-site" }))
	if strings.Contains(md, "secret-site") {
		t.Errorf("a private repository no wave names is named:\n%s", md)
	}
	for _, want := range []string{"a repository not every reader here may see", "🛑 stopped", "`kustomization/upf/x` reported **failure**",
		"1 failing downstream(s) are in repositories not every reader of this repository can read"} {
		if !strings.Contains(md, want) {
			t.Errorf("the status lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "](javascript") || strings.Contains(md, "@admins") {
		t.Errorf("the deployer's text is live markdown:\n%s", md)
	}
}
