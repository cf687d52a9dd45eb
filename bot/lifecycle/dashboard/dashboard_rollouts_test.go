package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	irollout "github.com/porchbot/porchbot/internal/rollout"
)

var rolloutNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// stoppedRollout is network/upf's rollout of v2 stopped in wave "early":
// the canary acme/site-00 healthy; in the early wave, the public
// acme/site-02 healthy and failing the private acme/secret-site, with
// desc as the deployer's description; three more waiting in "rest".
func stoppedRollout(desc string) (config.Rollout, *irollout.Plan) {
	cfg := config.Rollout{Package: "network/upf", Success: config.SuccessDeployed, Waves: []config.RolloutWave{
		{Name: "canary", Repositories: []string{"acme/site-00"}},
		{Name: "early", Topic: "early"},
		{Name: "rest"},
	}}
	spec := irollout.Spec{Package: "network/upf", RequireDeployment: true, Waves: []irollout.Wave{
		{Name: "canary", Select: irollout.Selector{Repositories: []string{"acme/site-00"}}},
		{Name: "early", Select: irollout.Selector{Topic: "early"}},
		{Name: "rest"},
	}}
	ds := []irollout.Downstream{
		{Repo: "acme/site-00", Package: "upf", At: 2},
		{Repo: "acme/site-02", Package: "upf", At: 2, Topics: []string{"early"}},
		{Repo: "acme/secret-site", Package: "upf", At: 2, Topics: []string{"early"}},
		{Repo: "acme/site-07", Package: "upf", At: 1},
		{Repo: "acme/site-08", Package: "upf", At: 1},
		{Repo: "acme/site-09", Package: "upf", At: 1},
	}
	rec := irollout.Record{Package: "network/upf"}
	ok := irollout.Report{Revision: 2, State: irollout.Success, At: rolloutNow.Add(-time.Hour)}
	rec.Observe(irollout.Key("acme/site-00", "upf"), "kustomization/upf", ok)
	rec.Observe(irollout.Key("acme/site-02", "upf"), "kustomization/upf", ok)
	rec.Observe(irollout.Key("acme/secret-site", "upf"), "kustomization/upf", irollout.Report{Revision: 2, State: irollout.Failure,
		At: rolloutNow.Add(-time.Minute), Description: desc, URL: "https://flux.example.com/secret-site"})
	p := irollout.Decide(spec, 2, ds, rec, rolloutNow)
	return cfg, &p
}

// public: every site-NN is public; acme/secret-site is private.
func publicSites(repo string) bool { return strings.HasPrefix(repo, "acme/site-") }

// TestDashboardRollouts: the upstream's dashboard shows each rollout's
// state and why, a line of its waves with their counts, and its failures;
// a private downstream is counted, never named, not even its link.
func TestDashboardRollouts(t *testing.T) {
	cfg, plan := stoppedRollout("Health check failed: deployment/upf not ready")
	if plan.State != irollout.Stopped {
		t.Fatalf("the plan is %s (%s), want stopped", plan.State, plan.Reason)
	}
	body := Body(Facts{Repo: "acme/catalog", Web: "https://github.example", DeploymentBranch: "main",
		Packages: []proposals.PackageStatus{{Name: "network/upf", Latest: 2}},
		Rollouts: []Rollout{{Package: "network/upf", Plan: plan, Name: rollout.NameableIn(cfg, publicSites)}}})
	for _, want := range []string{
		"## Rollouts\n\n- `network/upf` v2: 🛑 stopped — wave `early` failed: a repository not every reader here may see: `kustomization/upf` reported failure\n",
		"  - waves: `canary` ✅ done 1/1 · `early` ❌ failed 1/2 (2 merged) · `rest` waiting 0/3\n",
		"  - wave `early`: a repository not every reader here may see: `kustomization/upf` reported **failure**: Health check failed: deployment/upf not ready\n",
		"  - An approver's `/porch rollout resume network/upf`",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard does not say %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "secret-site") {
		t.Errorf("the dashboard of a public upstream names the private downstream:\n%s", body)
	}

	// The same failure in a public site is named, with its link.
	plan.Waves[1].Failures[0].Repo = "acme/site-03"
	body = Body(Facts{Repo: "acme/catalog", Rollouts: []Rollout{{Package: "network/upf", Plan: plan, Name: rollout.NameableIn(cfg, publicSites)}}})
	if want := "  - wave `early`: `acme/site-03` `upf`: `kustomization/upf` reported **failure**: Health check failed: deployment/upf not ready (`https://flux.example.com/secret-site`)\n"; !strings.Contains(body, want) {
		t.Errorf("a public failing site is not named:\n%s", body)
	}

	// A rollout that could not be read says so; no section without rollouts.
	body = Body(Facts{Repo: "acme/catalog", Rollouts: []Rollout{{Package: "network/upf", Problem: "could not be read now"}}})
	if !strings.Contains(body, "- `network/upf`: could not be read now; `/porch rollout status network/upf` tells\n") {
		t.Errorf("an unread rollout:\n%s", body)
	}
	if body := Body(Facts{Repo: "acme/catalog"}); strings.Contains(body, "## Rollouts") {
		t.Errorf("a Rollouts section without rollouts:\n%s", body)
	}
}

// TestDashboardRolloutFailuresBounded: the dashboard lists the first
// failures and points at /porch rollout status for the others.
func TestDashboardRolloutFailuresBounded(t *testing.T) {
	cfg, plan := stoppedRollout("failed")
	f := plan.Waves[1].Failures[0]
	for i := range 8 {
		f.Repo = "acme/site-" + string(rune('a'+i))
		plan.Waves[1].Failures = append(plan.Waves[1].Failures, f)
	}
	body := Body(Facts{Repo: "acme/catalog", Rollouts: []Rollout{{Package: "network/upf", Plan: plan, Name: rollout.NameableIn(cfg, publicSites)}}})
	if n := strings.Count(body, "reported **failure**"); n != 5 {
		t.Errorf("%d failures listed, want 5:\n%s", n, body)
	}
	if !strings.Contains(body, "  - … and 4 more failures: `/porch rollout status network/upf` lists them\n") {
		t.Errorf("the failures left out are not counted:\n%s", body)
	}
}

// rolloutWriters are the dashboard's rollout section given what
// deployers write (a report's description) and the planner's reason
// (quoted whole): part of dashboardWriters, so FuzzDashboardWritersQuote
// covers them.
var rolloutWriters = mdtest.Writers{
	"dashboard rollout failure": func(s string) string {
		cfg, plan := stoppedRollout(s)
		return Body(Facts{Repo: "acme/catalog", Rollouts: []Rollout{{Package: "network/upf", Plan: plan, Name: rollout.NameableIn(cfg, publicSites)}}})
	},
	"dashboard rollout paused": func(s string) string {
		cfg, plan := stoppedRollout("failed")
		plan.State, plan.Reason = irollout.Paused, "paused by "+s
		plan.Waves[1].Failures = nil
		return Body(Facts{Repo: "acme/catalog", Rollouts: []Rollout{{Package: "network/upf", Plan: plan, Name: rollout.NameableIn(cfg, publicSites)}}})
	},
}

// TestDashboardRolloutsQuote: the seeds of every fuzz change nothing
// around them in the rollout section.
func TestDashboardRolloutsQuote(t *testing.T) {
	for _, s := range mdtest.Seeds {
		mdtest.CheckWriters(t, rolloutWriters, s)
	}
}
