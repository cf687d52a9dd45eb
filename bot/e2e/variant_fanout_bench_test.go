package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/bot/lifecycle/variant"
	"github.com/porchbot/porchbot/internal/forge"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/variants"
)

// variantTargets is how many target repositories the variant of
// BenchmarkVariantFanout reaches (the 200; PORCHBOT_BENCH_TARGETS
// runs it smaller while working on it).
func variantTargets() int {
	if n, err := strconv.Atoi(os.Getenv("PORCHBOT_BENCH_TARGETS")); err == nil && n > 0 {
		return n
	}
	return 200
}

// The budgets of REST calls per target.
const (
	variantNewTarget    = 3
	variantUpdateTarget = 3
	// secondaryPerMinute and secondaryPerHour are GitHub's secondary
	// limits of content-creating requests.
	secondaryPerMinute = 80
	secondaryPerHour   = 500
	// variantPacingTarget: porchbot's paced fan-out takes at least this
	// share (%) of the least time GitHub's limits allow.
	variantPacingTarget = 90
)

// limitCeiling is the least time GitHub's secondary limits allow for
// calls content-creating requests: 80 a minute, 500 an hour.
func limitCeiling(calls int) time.Duration {
	if calls <= 0 {
		return 0
	}
	hours := (calls - 1) / secondaryPerHour
	rest := calls - hours*secondaryPerHour
	return time.Duration(hours)*time.Hour + time.Duration(float64(rest)/secondaryPerMinute*float64(time.Minute))
}

// pacedTime is how long porchbot's production pacing takes for n targets
// each taking per unpaced: the API transport spaces the target's REST
// writes DefaultMutationSpacing apart (git pushes are not spaced), and
// updates.Budget (its default budget, UpdateContentCalls reserved
// per target) holds targets back for the hourly limit, run here on a
// virtual clock.
func pacedTime(n int, per time.Duration, writes int) time.Duration {
	var now time.Time
	budget := &updates.Budget{Limit: updates.DefaultBudget, Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { now = now.Add(d); return nil }}
	step := max(per, time.Duration(writes)*ghclient.DefaultMutationSpacing)
	for i := 0; i < n; i++ {
		_ = budget.Wait(context.Background(), updates.UpdateContentCalls)
		now = now.Add(step)
	}
	return now.Sub(time.Time{})
}

// BenchmarkVariantFanout measures one variant (targets by topic) over
// variantTargets() repositories on the forge, fanoutLatency on every REST
// call, as the App runs it (App.Variants.Reconcile): first every target
// gets its clone draft and proposal (new downstreams), then, the drafts
// landed on main and the entry moved from v2 to latest, every target gets
// its update pull request to v3 (a publish hands its release, as here).
// Reported: REST calls per target (the once-per-reconcile list of the
// installation's repositories apart), git requests per target, wall time
// beside the least time GitHub's secondary limit of 80 content-creating
// requests a minute allows for the same calls, calls refused, peak heap.
func BenchmarkVariantFanout(b *testing.B) {
	n := variantTargets()
	w := newWorld(b, "--queue-size", "20000")
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	w.publishUpstream("inject", func(dir string) {
		w.write(dir, upstreamPkg+"/site.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\n  namespace: upf\n  annotations:\n"+
			"    kpt.dev/config-injection: \"true\"\ndata:\n  dnn: unset\n")
	})
	v3 := w.publishUpstream("v3", upstreamV2(w))
	v3sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v3]

	// Every site: a README and its injector file on main, the topic edge.
	dir := filepath.Join(b.TempDir(), "site")
	w.write(dir, "README.md", "# an edge site\n")
	w.write(dir, injectorFile, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\ndata:\n  dnn: site.internet\n")
	w.git("", "init", "-q", "-b", "main", dir)
	w.git(dir, "-c", "user.name=alice", "-c", "user.email=alice@example.com", "add", "-A")
	w.git(dir, "-c", "user.name=alice", "-c", "user.email=alice@example.com", "commit", "-q", "-m", "An edge site")
	base := strings.Replace(w.svc.Embedded.Forge.BaseURL(), "http://", "http://alice:alice-token@", 1)
	sites := make([]string, n)
	for i := range sites {
		sites[i] = fmt.Sprintf("acme/site-%03d", i)
		if _, _, err := w.client("alice").Repositories.Create(w.ctx, "acme", &github.Repository{Name: github.String(fmt.Sprintf("site-%03d", i))}); err != nil {
			b.Fatal(err)
		}
		w.git(dir, "push", "-q", base+"/"+sites[i]+".git", "HEAD:main")
		w.setTopics(sites[i], "edge")
	}
	w.settle()

	// From here the webhooks wait in a sink: each reconcile's own calls
	// are counted apart from the pull requests' lifecycle they cause.
	fg := w.svc.Embedded.Forge
	fl := sinkFleet(b, w)
	entry := func(rev string) string {
		return "variants:\n  - upstream: {package: network/upf, revision: " + rev + "}\n    targets:\n      repositorySelector: {topic: edge}\n" +
			"    downstream: {package: upf}\n    labels: {tier: edge}\n    namespace: \"{{ .Repository.Name }}\"\n    injectors: [" + injectorFile + "]\n"
	}
	cfg := readFile(b, w.clone("alice", upstreamRepo), catalogConfig)
	w.pushConfigSettled(cfg+entry("v2"), func() {})
	fl.sent = len(fg.Deliveries()) // the config push is not handed to the bot: the reconcile reads it from git

	// The peaks hold the forge, in process, with every webhook payload it
	// keeps for the sink; the target is checked on the live heap.
	stopHeap := heapPeaks()
	refusedBefore := refusals(b, w)

	b.ResetTimer()
	// New downstreams: a clone draft and a proposal in every site.
	newRun := measureReconcile(b, w, nil)
	b.StopTimer()
	checkVariantResults(b, newRun.rep, variants.Clone, n)
	fl.settle() // the proposals' own lifecycle: render, approval

	// The drafts land on main (pushed as they are), the entry moves to
	// latest: every site is behind v3.
	land := w.clone("alice", upstreamRepo)
	for _, s := range sites {
		w.git(land, "fetch", "-q", base+"/"+s+".git", "refs/heads/"+variantDraft)
		w.git(land, "push", "-q", base+"/"+s+".git", "FETCH_HEAD:refs/heads/main")
	}
	w.pushConfigSettled(cfg+entry("latest"), func() {})
	fl.sent = len(fg.Deliveries())
	owner, name := splitRepo(upstreamRepo)
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, owner, name, v3)
	if err != nil {
		b.Fatalf("the publish made no release of %s: %v", v3, err)
	}
	pub := []publish.PublishedRevision{{Package: upstreamPkg, Revision: 3, Tag: v3, Commit: plumbing.NewHash(v3sha), Release: hubRelease(rel)}}
	b.StartTimer()
	updRun := measureReconcile(b, w, pub)
	b.StopTimer()
	peak, peakLive := stopHeap()
	checkVariantResults(b, updRun.rep, variants.Update, n)
	refused := refusals(b, w) - refusedBefore

	nf := float64(n)
	newPer, updPer := newRun.perTarget(nf), updRun.perTarget(nf)
	b.ReportMetric(newPer, "rest-calls/new-target")
	b.ReportMetric(updPer, "rest-calls/update-target")
	b.ReportMetric(newRun.wall.Seconds(), "new-s")
	b.ReportMetric(updRun.wall.Seconds(), "update-s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(peakLive)/(1<<20), "peak-live-heap-MiB")
	b.ReportMetric(refused, "secondary-limit-refusals")
	fmt.Fprintf(os.Stdout, "\nvariant over %d target repositories (%s per REST call):\n", n, fanoutLatency)
	for _, r := range []struct {
		what   string
		run    reconcileRun
		target int
	}{{"new downstream (clone draft + proposal)", newRun, variantNewTarget}, {"update (update pull request, mutations again)", updRun, variantUpdateTarget}} {
		per := r.run.perTarget(nf)
		writes, pushes := r.run.contentCalls(), r.run.calls["GIT receive-pack"]
		perTarget := time.Duration(int64(r.run.wall) / int64(n))
		paced := pacedTime(n, perTarget, int(writes)/n)
		// The paced rate between the hourly budget's waits.
		step := max(perTarget, time.Duration(int(writes)/n)*ghclient.DefaultMutationSpacing)
		perMinute := float64(writes) / nf * 60 / step.Seconds()
		pushesPerMinute := perMinute * float64(pushes) / float64(max(writes, 1))
		fmt.Fprintf(os.Stdout, "  %s:\n    REST calls per target:   %.2f (target ≤ %d), plus %d per reconcile (the installation's repositories, the entry's author)\n"+
			"    git requests per target: %.2f\n    wall time:               %s unpaced on the forge (%.0f ms per target)\n"+
			"    secondary limit:         %d REST writes (and %d git pushes); GitHub's limits (%d a minute, %d an hour) allow the writes in %s at the fastest; "+
			"porchbot's production pacing (--mutation-spacing %s, an hourly budget of %d with %d reserved per target) takes %s: %.0f%% of what the limits allow; "+
			"%.0f writes a minute at most. (git pushes are no API requests; were GitHub to count them: %s at the fastest, and %.0f a minute)\n"+
			"    per target by endpoint:\n      %s\n",
			r.what, per, r.target, r.run.perReconcile(), float64(r.run.git())/nf, r.run.wall.Round(time.Millisecond),
			float64(r.run.wall.Milliseconds())/nf, writes, pushes, secondaryPerMinute, secondaryPerHour, limitCeiling(int(writes)).Round(time.Second),
			ghclient.DefaultMutationSpacing, updates.DefaultBudget, updates.UpdateContentCalls,
			paced.Round(time.Second), 100*limitCeiling(int(writes)).Seconds()/paced.Seconds(), perMinute,
			limitCeiling(int(writes+pushes)).Round(time.Second), perMinute+pushesPerMinute,
			strings.Join(r.run.byEndpoint(nf), "\n      "))
		if per > float64(r.target) {
			b.Errorf("%s: %.2f REST calls per target, over the target of %d", r.what, per, r.target)
		}
		if pct := 100 * limitCeiling(int(writes)).Seconds() / paced.Seconds(); pct < variantPacingTarget {
			b.Errorf("%s: porchbot's pacing takes %s, %.0f%% of what GitHub's limits allow (target ≥ %d%%)",
				r.what, paced.Round(time.Second), pct, variantPacingTarget)
		}
		if perMinute > secondaryPerMinute {
			b.Errorf("%s: %.0f REST writes a minute, over GitHub's %d", r.what, perMinute, secondaryPerMinute)
		}
	}
	fmt.Fprintf(os.Stdout, "  peak live heap (bot + forge, the forge's held webhook payloads included): %.1f MiB (target ≤ 256)\n"+
		"  peak heap in use (live and not yet collected): %.1f MiB\n  secondary-limit refusals:  %.0f\n",
		float64(peakLive)/(1<<20), float64(peak)/(1<<20), refused)
	if refused > 0 {
		b.Errorf("%v calls refused for GitHub's secondary limit", refused)
	}
	if peakLive > 256<<20 {
		b.Errorf("peak live heap %.1f MiB, over 256", float64(peakLive)/(1<<20))
	}
}

// reconcileRun is one measured reconcile.
type reconcileRun struct {
	rep   *variant.Report
	calls map[string]int64
	wall  time.Duration
}

// measureReconcile runs the App's reconcile of the catalog with the
// forge's latency on and counts its calls.
func measureReconcile(b *testing.B, w *world, pub []publish.PublishedRevision) reconcileRun {
	b.Helper()
	up, err := w.svc.App.OpenRepo(w.ctx, upstreamRepo)
	if err != nil {
		b.Fatal(err)
	}
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{LatencyMs: int(fanoutLatency / time.Millisecond)})
	defer fg.SetFaults(forge.Faults{})
	before := fg.Stats().Snapshot()
	start := time.Now()
	rep, err := w.svc.App.Variants.Reconcile(context.Background(), up, pub)
	wall := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	return reconcileRun{rep: rep, calls: forge.StatsDelta(before, fg.Stats().Snapshot()), wall: wall}
}

// installationList is the route of the once-per-reconcile list.
const installationList = "GET /installation/repositories"

// perReconcile are the calls a reconcile makes once, whatever its number
// of targets: the installation's repositories, and the author of each
// entry's configuration commit (the flow rule, internal/flow; kept for
// good after the first reconcile).
func (r reconcileRun) perReconcile() int64 { return r.calls[installationList] + r.calls[commitAuthor] }

// commitAuthor is the commit endpoint, as the forge counts it.
const commitAuthor = "GET /repos/{owner}/{repo}/commits/{ref:.+}"

func (r reconcileRun) perTarget(n float64) float64 {
	return float64(forge.SumCounted(r.calls)-r.perReconcile()) / n
}

func (r reconcileRun) git() int64 {
	return r.calls["GIT info-refs"] + r.calls["GIT upload-pack"] + r.calls["GIT receive-pack"]
}

// contentCalls are the calls GitHub counts against its secondary limit of
// content creation: REST writes (git pushes have limits of their own).
func (r reconcileRun) contentCalls() int64 {
	var n int64
	for k, v := range r.calls {
		if strings.HasPrefix(k, "POST ") || strings.HasPrefix(k, "PATCH ") || strings.HasPrefix(k, "PUT ") || strings.HasPrefix(k, "DELETE ") {
			n += v
		}
	}
	return n
}

func (r reconcileRun) byEndpoint(n float64) []string {
	var out []string
	for k, v := range r.calls {
		if !strings.HasPrefix(k, "GIT ") {
			out = append(out, fmt.Sprintf("%s: %.2f", k, float64(v)/n))
		}
	}
	sort.Strings(out)
	return out
}

// checkVariantResults: every one of n targets got kind, with a pull request.
func checkVariantResults(b *testing.B, rep *variant.Report, kind variants.Kind, n int) {
	b.Helper()
	got := 0
	for _, r := range rep.Results {
		if r.Err != nil {
			b.Fatalf("%s in %s: %v", r.Action.Kind, r.Action.Target, r.Err)
		}
		if r.Action.Kind == kind && r.PullRequest != 0 {
			got++
		}
	}
	if got != n {
		b.Fatalf("%d of %d targets got a %s pull request", got, n, kind)
	}
}

// hubRelease is a release a user's client read, in porchbot's view.
func hubRelease(rel *github.RepositoryRelease) *hub.Release {
	r := ghclient.ReleaseOf(rel)
	return &r
}
