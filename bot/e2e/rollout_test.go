package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// rolloutConfig rolls network/upf out in three waves: two canary sites
// one at a time, the sites of topic "early" all at once, then the rest;
// each wave waits for Flux's report of a healthy deployment.
const rolloutConfig = `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
updates:
  rollouts:
    - package: network/upf
      deploymentContexts: ["kustomization/*"]
      waves:
        - {name: canary, repositories: [acme/site-00, acme/site-01], maxInProgress: 1}
        - {name: early, topic: early}
        - {name: rest}
`

// rolloutFleet is acme/catalog's network/upf at v1 with rolloutConfig,
// and twelve downstream sites (acme/site-00 to -11) holding it as kpt pkg
// get leaves it, site-02 to -05 of topic "early".
func rolloutFleet(t *testing.T) (*world, []string) {
	t.Helper()
	w := newWorld(t)
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	v1 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"]
	cat := w.clone("alice", upstreamRepo)
	w.write(cat, ".github/porchbot.yaml", rolloutConfig)
	w.git(cat, "add", "-A")
	w.git(cat, "commit", "-q", "-m", "Roll network/upf out in waves")
	w.git(cat, "push", "-q", "origin", "HEAD:main")
	w.settle()

	dir := w.siteAtV1(filepath.Join(t.TempDir(), "site"), v1, "alice@example.com")
	base := strings.Replace(w.svc.Embedded.Forge.BaseURL(), "http://", "http://alice:alice-token@", 1)
	var sites []string
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("site-%02d", i)
		if _, _, err := w.client("alice").Repositories.Create(w.ctx, "acme", &github.Repository{Name: github.String(name)}); err != nil {
			t.Fatal(err)
		}
		if i >= 2 && i <= 5 {
			if _, _, err := w.client("alice").Repositories.ReplaceAllTopics(w.ctx, "acme", name, []string{"edge", "early"}); err != nil {
				t.Fatal(err)
			}
		}
		w.git(dir, "push", "-q", base+"/acme/"+name+".git", "HEAD:main")
		sites = append(sites, "acme/"+name)
	}
	w.settle()
	return w, sites
}

// openUpdate is the open update pull request of site (nil: none).
func (w *world) openUpdate(site string) *github.PullRequest {
	w.t.Helper()
	for _, pr := range w.updatePulls(site) {
		if pr.GetState() == "open" {
			return pr
		}
	}
	return nil
}

// withUpdates are the sites with an open update pull request whose title
// names tag.
func (w *world) withUpdates(sites []string, tag string) []string {
	w.t.Helper()
	var out []string
	for _, s := range sites {
		if pr := w.openUpdate(s); pr != nil && strings.Contains(pr.GetTitle(), tag) {
			out = append(out, s)
		}
	}
	return out
}

// mergeUpdate merges site's open update pull request as alice.
func (w *world) mergeUpdate(site string) {
	w.t.Helper()
	pr := w.openUpdate(site)
	if pr == nil {
		w.t.Fatalf("%s has no open update pull request", site)
	}
	w.merge("alice", site, pr.GetNumber())
	w.settle()
}

// fluxReports posts, as Flux's notification controller does, a commit
// status on site's main head (alice posts for the controller).
func (w *world) fluxReports(site, state, description string) {
	w.t.Helper()
	w.fluxReportsOn(site, w.branchSHA(site, "main"), state, description)
}

// fluxReportsOn is fluxReports on commit head.
func (w *world) fluxReportsOn(site, head, state, description string) {
	w.t.Helper()
	w.postStatus(site, head, "kustomization/upf/5f0a1a2b", state, description)
}

// postStatus posts a commit status of context on site's commit head as
// alice.
func (w *world) postStatus(site, head, context, state, description string) {
	w.t.Helper()
	owner, name := splitRepo(site)
	if _, _, err := w.client("alice").Repositories.CreateStatus(w.ctx, owner, name, head, &github.RepoStatus{
		State: github.String(state), Context: github.String(context), Description: github.String(description),
		TargetURL: github.String("https://flux.example.com/" + name)}); err != nil {
		w.t.Fatal(err)
	}
	w.settle()
}

// gateCalls are the calls of a delta but the dashboards': a report that
// changes a wave's counts refreshes the upstream's dashboard, debounced,
// at its own cost (one look-up, one edit a repository), which may or may
// not fall in the window measured; the gate itself costs nothing.
func gateCalls(delta map[string]int64) map[string]int64 {
	out := forge.Counted(delta)
	for _, route := range []string{"GET /repos/{owner}/{repo}/issues", "PATCH /repos/{owner}/{repo}/issues/{number}"} {
		delete(out, route)
	}
	return out
}

// rolloutStatus is the reply to /porch rollout status in a new issue of
// the catalog.
func (w *world) rolloutCommand(user, args string) string {
	w.t.Helper()
	issue := w.createIssue(user, upstreamRepo, "Rollout "+args)
	c := w.comment(user, upstreamRepo, issue, "/porch rollout "+args)
	w.settle()
	return w.replyTo(upstreamRepo, issue, c).GetBody()
}

// TestRolloutInWaves: one upstream, twelve downstream sites in three
// waves; each wave's update pull requests open when the previous wave
// merged and Flux reported it healthy; a failure in wave two stops the
// rollout until an approver resumes it; a revision published mid-rollout
// starts again from the first wave, leaving the later waves' updates as
// they were. A deployment report that changes no wave costs porchbot no
// REST call.
func TestRolloutInWaves(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	canary, early, rest := sites[:2], sites[2:6], sites[6:]
	v2 := w.publishUpstream("v2", upstreamV2(w))
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != "acme/site-00" {
		t.Fatalf("after %s, updates in %v; want the first canary only (maxInProgress 1)", v2, got)
	}

	// The first canary merges: the second gets its update; the wave waits
	// for both to be healthy.
	w.mergeUpdate(canary[0])
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != canary[1] {
		t.Fatalf("after the first canary merged, updates in %v; want %s", got, canary[1])
	}
	w.fluxReports(canary[0], "success", "Applied revision main@sha1")
	w.mergeUpdate(canary[1])
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("the canary wave is not healthy yet, yet updates in %v", got)
	}
	fg := w.svc.Embedded.Forge
	head := w.branchSHA(canary[1], "main")
	before := fg.Stats().Snapshot()
	w.fluxReportsOn(canary[1], head, "success", "Applied revision main@sha2")
	opened := forge.Counted(forge.StatsDelta(before, fg.Stats().Snapshot()))
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(early, ",") {
		t.Fatalf("the canary wave is healthy: updates in %v, want the early wave %v", got, early)
	}
	t.Logf("the report that opened the early wave (4 update pull requests and their lifecycle): %d REST calls, %v", forge.SumCounted(opened)-1, opened)

	// The early wave: three healthy, one failing. A healthy report that
	// opens nothing costs porchbot nothing.
	for _, s := range early {
		w.mergeUpdate(s)
	}
	head = w.branchSHA(early[0], "main")
	before = fg.Stats().Snapshot()
	w.fluxReportsOn(early[0], head, "success", "Applied")
	w.settleDashboards() // its refresh of the catalog's dashboard in this window, not the next
	quiet := gateCalls(forge.StatsDelta(before, fg.Stats().Snapshot()))
	if n := forge.SumCounted(quiet); n != 1 {
		t.Errorf("a report that changed no wave cost porchbot %d REST calls beyond the report itself: %v", n-1, quiet)
	}
	// A CI's failure is no deployment report: it stops nothing, and costs
	// no call and no fetch (the catalog's rollouts were read at their last
	// step: they want no ci/ context).
	head = w.branchSHA(early[3], "main")
	before = fg.Stats().Snapshot()
	w.postStatus(early[3], head, "ci/build", "failure", "Lint failed")
	w.settleDashboards()
	ci := forge.StatsDelta(before, fg.Stats().Snapshot())
	if n := forge.SumCounted(gateCalls(ci)); n != 1 {
		t.Errorf("a CI status cost porchbot %d REST calls", n-1)
	}
	if n := ci["GIT info-refs"]; n != 0 {
		t.Errorf("a CI status had porchbot fetch %d times (the catalog's rollouts want no ci/ context: %v)", n, ci)
	}
	if status := w.rolloutCommand("alice", "status network/upf"); strings.Contains(status, "stopped") {
		t.Fatalf("a CI status stopped the rollout:\n%s", status)
	}
	w.fluxReports(early[1], "success", "Applied")
	w.fluxReports(early[2], "success", "Applied")
	w.fluxReports(early[3], "failure", "Health check failed: deployment/upf not ready")
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("wave early failed, yet updates in %v", got)
	}
	status := w.rolloutCommand("alice", "status network/upf")
	for _, want := range []string{"stopped", "wave `early` failed", "`acme/site-05` `upf`", "Health check failed", "/porch rollout resume network/upf"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status does not say %q:\n%s", want, status)
		}
	}

	// carol reads only: no command. bob (a writer; approvals name nobody)
	// resumes: the failure is acknowledged, the rest opens.
	if reply := w.rolloutCommand("carol", "resume network/upf"); strings.Contains(reply, "Resumed") {
		t.Fatalf("carol resumed the rollout:\n%s", reply)
	}
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("updates in %v before any resume", got)
	}
	reply := w.rolloutCommand("bob", "resume network/upf")
	if !strings.Contains(reply, "Resumed") {
		t.Fatalf("bob's resume:\n%s", reply)
	}
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(rest, ",") {
		t.Fatalf("after the resume, updates in %v, want the rest %v", got, rest)
	}

	// v3 mid-rollout: the canary wave again, one at a time; the rest keep
	// their v2 updates.
	v3 := w.publishUpstream("v3", upstreamV3(w))
	if got := w.withUpdates(sites, v3); strings.Join(got, ",") != canary[0] {
		t.Fatalf("after %s, %s updates in %v; want the first canary only", v3, v3, got)
	}
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(rest, ",") {
		t.Fatalf("after %s, %s updates in %v; want the rest's untouched %v", v3, v2, got, rest)
	}
	if status := w.rolloutCommand("alice", "status network/upf"); !strings.Contains(status, "`network/upf` v3**: ⏳ rolling") || !strings.Contains(status, "| `canary` | ⏳ rolling | 2 | 0 | 0 | 1 | 0 |") {
		t.Errorf("the status after %s:\n%s", v3, status)
	}
}

// TestRolloutResyncRepairsLostReports: Flux's reports on the canaries are
// lost (the forge drops their webhooks); the rollout waits, and the
// resync, reading the canaries' deployment heads again (a combined status
// and the check runs each), opens the next wave.
func TestRolloutResyncRepairsLostReports(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	canary, early := sites[:2], sites[2:6]
	v2 := w.publishUpstream("v2", upstreamV2(w))
	w.mergeUpdate(canary[0])
	w.mergeUpdate(canary[1])
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	w.fluxReports(canary[0], "success", "Applied")
	w.fluxReports(canary[1], "success", "Applied")
	fg.SetFaults(forge.Faults{})
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("the reports were lost, yet updates in %v", got)
	}
	calls := forge.Counted(w.resyncPass(w.resyncDepsAlone()))
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(early, ",") {
		t.Fatalf("after the resync, updates in %v, want the early wave %v", got, early)
	}
	if n := calls["GET /repos/{owner}/{repo}/commits/{ref:.+}/status"]; n != 2 {
		t.Errorf("the resync read %d combined statuses, want the two canaries': %v", n, calls)
	}
}

// TestRolloutRecordWrittenByHandPauses: a writer pushes a record to
// porch/rollouts saying the canaries are healthy; it is not porchbot's
// (no valid signature), so the rollout is paused, not advanced, until an
// approver resumes it.
func TestRolloutRecordWrittenByHandPauses(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	v2 := w.publishUpstream("v2", upstreamV2(w))
	w.mergeUpdate(sites[0])
	dir := w.clone("bob", upstreamRepo)
	w.git(dir, "fetch", "-q", "origin", "porch/rollouts")
	w.git(dir, "switch", "-q", "-c", "rollouts", "origin/porch/rollouts")
	path := "rollouts/network~upf/record.json"
	if !strings.Contains(readFile(t, dir, path), `"sig"`) {
		t.Fatalf("porchbot's record is not signed:\n%s", readFile(t, dir, path))
	}
	forged := `{"record": {"package": "network/upf", "downstreams": {"acme/site-00:upf": {"offered": 2, "reports": {"kustomization/upf/x":
  {"revision": 2, "state": "success", "at": "2026-01-01T00:00:00Z", "since": "2026-01-01T00:00:00Z"}}}}}, "sig": "00"}
`
	w.write(dir, path, forged)
	w.git(dir, "commit", "-q", "-am", "The canaries are healthy")
	w.git(dir, "push", "-q", "origin", "HEAD:porch/rollouts")
	w.settle()
	w.mergeUpdate(sites[1]) // a step: it reads the record
	status := w.rolloutCommand("alice", "status network/upf")
	if !strings.Contains(status, "⏸️ paused") || !strings.Contains(status, "was not written by porchbot") {
		t.Fatalf("a hand-written record did not pause the rollout:\n%s", status)
	}
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("the forged record opened updates in %v", got)
	}
	if reply := w.rolloutCommand("bob", "resume network/upf"); !strings.Contains(reply, "Resumed") {
		t.Fatalf("bob's resume:\n%s", reply)
	}
	if status := w.rolloutCommand("alice", "status network/upf"); !strings.Contains(status, "⏳ rolling") {
		t.Fatalf("after the resume:\n%s", status)
	}
}

// TestRolloutPauseAndSkipWave: an approver's pause holds a publish back
// entirely; the resume opens the first canary; skip-wave lets the early
// wave open without the canaries' reports.
func TestRolloutPauseAndSkipWave(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	early := sites[2:6]
	if reply := w.rolloutCommand("bob", "pause network/upf"); !strings.Contains(reply, "Paused") || !strings.Contains(reply, "⏸️ paused") {
		t.Fatalf("bob's pause:\n%s", reply)
	}
	v2 := w.publishUpstream("v2", upstreamV2(w))
	if got := w.withUpdates(sites, v2); len(got) != 0 {
		t.Fatalf("a paused rollout proposed %s in %v", v2, got)
	}
	w.rolloutCommand("bob", "resume network/upf")
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != sites[0] {
		t.Fatalf("after the resume, updates in %v, want %s", got, sites[0])
	}
	reply := w.rolloutCommand("bob", "skip-wave network/upf")
	if !strings.Contains(reply, "Wave `canary` skipped") {
		t.Fatalf("bob's skip-wave:\n%s", reply)
	}
	want := append([]string{sites[0]}, early...)
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("after skipping the canaries, updates in %v, want %v", got, want)
	}
	if reply := w.rolloutCommand("bob", "skip-wave network/upf --wave nope"); !strings.Contains(reply, "has no wave `nope`") {
		t.Errorf("a skip of a wave that does not exist:\n%s", reply)
	}
}
