package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// The deployment reports a rollout's wave waits for, besides Flux's
// commit statuses (rollout_test.go): GitHub Deployments' statuses, and
// where a report must be made (a commit of the deployment branch). Check
// runs of another App are not played here: the forge registers one App
// only (porchbot's) and lets only its installation create check runs,
// and porchbot's own check runs are never reports (which
// TestRolloutWaveMetByDeployments shows).

// reportingContexts has rolloutFleet's rollout wait for reports of
// contexts instead of Flux's.
func (w *world) reportingContexts(contexts string) {
	w.t.Helper()
	cat := w.clone("alice", upstreamRepo)
	w.write(cat, ".github/porchbot.yaml", strings.Replace(rolloutConfig, `["kustomization/*"]`, contexts, 1))
	w.git(cat, "commit", "-q", "-am", "Roll network/upf out on "+contexts)
	w.git(cat, "push", "-q", "origin", "HEAD:main")
	w.settle()
}

// deploys is a deployer (alice posts for it) deploying site's main head
// to environment with GitHub's Deployments API, as a CD system does (no
// auto-merge, no required contexts), and reporting state; it returns the
// deployment.
func (w *world) deploys(site, environment, state, description string) int64 {
	w.t.Helper()
	owner, name := splitRepo(site)
	d, _, err := w.client("alice").Repositories.CreateDeployment(w.ctx, owner, name, &github.DeploymentRequest{
		Ref: github.String(w.branchSHA(site, "main")), Environment: github.String(environment), AutoMerge: github.Bool(false),
		RequiredContexts: &[]string{}, Description: github.String("Deploy the UPF")})
	if err != nil {
		w.t.Fatalf("deployment of %s: %v", site, err)
	}
	w.deploymentReports(site, d.GetID(), state, description)
	return d.GetID()
}

// deploymentReports posts a status of deployment id of site.
func (w *world) deploymentReports(site string, id int64, state, description string) {
	w.t.Helper()
	owner, name := splitRepo(site)
	if _, _, err := w.client("alice").Repositories.CreateDeploymentStatus(w.ctx, owner, name, id, &github.DeploymentStatusRequest{
		State: github.String(state), Description: github.String(description),
		LogURL: github.String("https://deploy.example.com/" + name)}); err != nil {
		w.t.Fatalf("deployment status of %s: %v", site, err)
	}
	w.settle()
}

// TestRolloutWaveMetByDeployments: a rollout waiting for
// "deployment/*" opens its next wave once each site of a wave merged
// its update and its GitHub deployment reported success on its main head
// (in progress is not yet met; a check run of porchbot's App named as a
// deployment context is no report); a deployment's failure stops it.
func TestRolloutWaveMetByDeployments(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	w.reportingContexts(`["deployment/*", "argo/*"]`)
	canary, early := sites[:2], sites[2:6]
	v2 := w.publishUpstream("v2", upstreamV2(w))
	w.mergeUpdate(canary[0])
	w.deploys(canary[0], "edge", "success", "Deployed")
	w.mergeUpdate(canary[1])

	// porchbot's own App reports nothing, whatever it names its check: a
	// success here would meet the wave.
	owner, name := splitRepo(canary[1])
	inst, err := w.svc.Clients.InstallationIDForRepo(w.ctx, canary[1])
	if err != nil {
		t.Fatal(err)
	}
	asBot, err := w.svc.Clients.Installation(w.ctx, inst)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := asBot.Checks.CreateCheckRun(w.ctx, owner, name, github.CreateCheckRunOptions{Name: "argo/upf",
		HeadSHA: w.branchSHA(canary[1], "main"), Status: github.String("completed"), Conclusion: github.String("success")}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("porchbot's own check run met the canary wave: updates in %v", got)
	}

	id := w.deploys(canary[1], "edge", "in_progress", "Deploying")
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("%s's deployment is in progress, yet updates in %v", canary[1], got)
	}
	w.deploymentReports(canary[1], id, "success", "Deployed")
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(early, ",") {
		t.Fatalf("the canary wave deployed: updates in %v, want the early wave %v", got, early)
	}

	// The early wave: three deployed, one failing.
	for _, s := range early {
		w.mergeUpdate(s)
	}
	for _, s := range early[:3] {
		w.deploys(s, "edge", "success", "Deployed")
	}
	w.deploys(early[3], "edge", "failure", "Readiness probe failed: upf not ready")
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("wave early failed, yet updates in %v", got)
	}
	status := w.rolloutCommand("alice", "status network/upf")
	for _, want := range []string{"stopped", "wave `early` failed", "`acme/site-05` `upf`", "Readiness probe failed"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status does not say %q:\n%s", want, status)
		}
	}
}

// TestRolloutReportOffTheDeploymentBranch: a healthy report on a commit
// that is not on the site's deployment branch (its update pull request's
// head before the merge, a preview branch after it) meets nothing, though
// the commit holds the revision; the same report on main does.
func TestRolloutReportOffTheDeploymentBranch(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	canary, early := sites[:2], sites[2:6]
	v2 := w.publishUpstream("v2", upstreamV2(w))
	w.mergeUpdate(canary[0])
	w.fluxReports(canary[0], "success", "Applied revision main@sha1")

	pr := w.openUpdate(canary[1])
	if pr == nil {
		t.Fatalf("%s has no update pull request", canary[1])
	}
	w.fluxReportsOn(canary[1], pr.GetHead().GetSHA(), "success", "Applied revision update@sha2")
	w.mergeUpdate(canary[1])
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("a report on the update branch met the canary wave: updates in %v", got)
	}

	preview := w.clone("alice", canary[1])
	w.git(preview, "checkout", "-q", "-b", "preview")
	w.write(preview, "PREVIEW.md", "a preview of the site\n")
	w.git(preview, "add", "-A")
	w.git(preview, "commit", "-q", "-m", "Preview")
	w.git(preview, "push", "-q", "origin", "preview")
	w.settle()
	w.fluxReportsOn(canary[1], w.branchSHA(canary[1], "preview"), "success", "Applied revision preview@sha3")
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("a report on a preview branch met the canary wave: updates in %v", got)
	}

	w.fluxReports(canary[1], "success", "Applied revision main@sha4")
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(early, ",") {
		t.Fatalf("the canary wave is healthy on main: updates in %v, want the early wave %v", got, early)
	}
}
