package e2e

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
)

// Targets of issue #22 §1 for a pass over quiet repositories.
const (
	resyncSteadyTarget = 0.05 // counted REST calls per quiet repository, steady pass
	resyncColdTarget   = 3.0  // counted REST calls per repository, a new replica's first pass
	resyncWallTarget   = 10.0 // seconds, steady pass at 1,000 repositories
	resyncHeapTarget   = 32.0 // KiB of porchbot's live heap per installed repository
	resyncWallAtRepos  = 1000 // the wall-time and memory targets are for this size
)

// BenchmarkResyncScale: N repositories in one installation (100 and 1,000;
// PORCHBOT_BENCH_RESYNC_REPOS=n,m… overrides), each with a published
// package, half of them tracking acme/catalog's basens. Their webhooks are
// lost while they are made, so porchbot meets the fleet in its first
// resync pass (dashboards opened); passes with nothing changed are the
// steady state; then a second replica starts and makes its cold pass. It
// reports, per pass, the REST calls GitHub counts (answers 304 are not
// counted, as on GitHub), per repository, the wall time and porchbot's
// live heap per repository; a missed target fails the run (wall time and
// heap are judged at 1,000 repositories, where fixed costs amortize).
func BenchmarkResyncScale(b *testing.B) {
	for _, n := range resyncScaleSizes(b) {
		b.Run(fmt.Sprintf("repos=%d", n), func(b *testing.B) { benchResyncScale(b, n) })
	}
}

func resyncScaleSizes(b *testing.B) []int {
	v := os.Getenv("PORCHBOT_BENCH_RESYNC_REPOS")
	if v == "" {
		return []int{100, 1000}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			b.Fatalf("PORCHBOT_BENCH_RESYNC_REPOS: %q is not a size of at least 2", f)
		}
		out = append(out, n)
	}
	return out
}

// resyncPassFigures is what one pass cost.
type resyncPassFigures struct {
	counted, notModified, git int64
	wall                      time.Duration
	byEndpoint                map[string]int64
}

func benchResyncScale(b *testing.B, n int) {
	if os.Getenv("PORCHBOT_BENCH_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 4096
	}
	w := newWorld(b, "--queue-size", "20000")
	fg := w.svc.Embedded.Forge
	const upstream = "acme/catalog"
	seed := w.firstCommit(upstream)
	w.publishFound(upstream, seed, "basens")
	v1 := w.tags(upstream, "basens/v")["basens/v1"]
	repoURL := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "catalog"), ".git")

	// The fleet is made while every webhook is lost: porchbot first hears
	// of it in the resync.
	// Its revisions were published two days ago, as most of a fleet's
	// are: a revision of the last day has its release looked for
	// (lifecycle's releaseRepairHorizon), one listing more.
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	twoDaysAgo := time.Now().Add(-48 * time.Hour)
	fg.SetClock(func() time.Time { return twoDaysAgo })
	alice, _ := fg.Account("alice")
	admin := w.client("alice")
	key := core.RecordKey(w.svc.Embedded.WebhookSecret)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("fleet-%04d", i)
		if _, err := fg.CreateRepo("acme", name, forge.RepoOptions{Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin, "bob": forge.PermWrite}}); err != nil {
			b.Fatal(err)
		}
		files := map[string][]byte{"app/Kptfile": []byte(fleetKptfile(i, repoURL, v1)),
			"app/cm.yaml": []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-%d\ndata:\n  site: %q\n", i, name))}
		sha, err := fg.CommitFiles("acme/"+name, "main", files, "kpt pkg init app", alice)
		if err != nil {
			b.Fatal(err)
		}
		if err := lifecycletest.RevisionTagKey(w.ctx, admin, key, "acme", name, "app/v1", sha); err != nil {
			b.Fatal(err)
		}
		if _, _, err := admin.Repositories.CreateRelease(w.ctx, "acme", name, &github.RepositoryRelease{TagName: github.String("app/v1"),
			Name: github.String("app v1")}); err != nil {
			b.Fatal(err)
		}
	}
	fg.SetClock(nil)
	fg.SetFaults(forge.Faults{})
	w.settle()

	passOf := func(svc *service.Service) func() resyncPassFigures {
		deps, list := svc.ResyncDeps(), svc.App.InstalledRepos(svc.Clients)
		// The webhooks lost while the fleet was made would be redelivered
		// a hundred a pass: the passes measured are the resync's own
		// (a quiet redelivery pass is one App call, TestRedelivererRepairsLostWebhooks).
		deps.BeforePass = nil
		return func() resyncPassFigures {
			// Each pass measured starts a new hour of the rate limit: the
			// fleet's first pass and its webhooks spend most of one, and a
			// pass under a fifth of the budget yields (ResyncBudgetFloor).
			fg.ResetRateBudgets()
			yields := testutil.ToFloat64(svc.Metrics.ResyncYields)
			defer func() {
				if y := testutil.ToFloat64(svc.Metrics.ResyncYields) - yields; y > 0 {
					b.Fatalf("the pass yielded %v repositories for the rate budget", y)
				}
			}()
			before := fg.Stats().Snapshot()
			start := time.Now()
			repos := resync.Pass(w.ctx, list, svc.App.Opener.Open, deps)
			wall := time.Since(start)
			d := forge.StatsDelta(before, fg.Stats().Snapshot())
			if len(repos) < n {
				b.Fatalf("the pass listed %d repositories, fewer than the fleet's %d", len(repos), n)
			}
			return resyncPassFigures{counted: forge.SumCounted(d), notModified: forge.SumNotModified(d),
				git: d["GIT info-refs"] + d["GIT upload-pack"] + d["GIT receive-pack"], wall: wall, byEndpoint: d}
		}
	}
	pass := passOf(w.svc)
	b.ResetTimer()
	// The first pass ever: porchbot meets the fleet (its dashboards are
	// opened, its index built); then the passes of a replica at rest.
	first := pass()
	w.settle()
	warm := pass()
	w.settle()
	steady := pass()
	b.StopTimer()
	// A replica that starts while the first runs: its first pass. What it
	// keeps afterwards, beyond what it held on starting, is porchbot's
	// memory per repository (the forge's in the same process moves little:
	// a quiet pass changes nothing on it).
	replica := startReplica(b, w, "replica-b")
	replicaPass := passOf(replica)
	base := liveHeap()
	b.StartTimer()
	cold := replicaPass()
	b.StopTimer()
	replicaPass()
	heap := liveHeap() - base
	writeHeapProfile(b)

	repos := float64(n + 1) // the fleet and the catalog
	per := func(x int64) float64 { return float64(x) / repos }
	b.ReportMetric(per(cold.counted), "cold-calls/repo")
	b.ReportMetric(per(steady.counted), "steady-calls/repo")
	b.ReportMetric(steady.wall.Seconds(), "steady-pass-s")
	b.ReportMetric(float64(heap)/1024/repos, "heap-KiB/repo")
	fmt.Fprintf(os.Stdout, "\nresync of %d repositories (one installation; half track acme/catalog basens):\n"+
		"  first pass ever:         %6d counted REST calls, %.2f per repository (dashboards opened), %d answered 304, %d git requests, %s\n"+
		"  cold pass (new replica): %6d counted REST calls, %.2f per repository (target ≤ %.0f), %d answered 304, %d git requests, %s\n"+
		"  second pass:             %6d counted REST calls, %.3f per repository, %d answered 304, %d git requests, %s\n"+
		"  steady pass:             %6d counted REST calls, %.3f per repository (target ≤ %.2f), %d answered 304, %d git requests, %s\n"+
		"  porchbot's live heap:    %.1f KiB per repository (target ≤ %.0f)\n  cold pass by endpoint:\n    %s\n  steady pass by endpoint:\n    %s\n",
		n+1, first.counted, per(first.counted), first.notModified, first.git, first.wall.Round(time.Millisecond),
		cold.counted, per(cold.counted), resyncColdTarget, cold.notModified, cold.git, cold.wall.Round(time.Millisecond),
		warm.counted, per(warm.counted), warm.notModified, warm.git, warm.wall.Round(time.Millisecond),
		steady.counted, per(steady.counted), resyncSteadyTarget, steady.notModified, steady.git, steady.wall.Round(time.Millisecond),
		float64(heap)/1024/repos, resyncHeapTarget, strings.Join(endpointLines(cold.byEndpoint, repos), "\n    "),
		strings.Join(endpointLines(steady.byEndpoint, repos), "\n    "))
	if per(steady.counted) > resyncSteadyTarget {
		b.Errorf("steady pass: %.3f counted REST calls per quiet repository, over the target of %.2f", per(steady.counted), resyncSteadyTarget)
	}
	if per(cold.counted) > resyncColdTarget {
		b.Errorf("cold pass: %.2f counted REST calls per repository, over the target of %.0f", per(cold.counted), resyncColdTarget)
	}
	if n >= resyncWallAtRepos && steady.wall.Seconds()*resyncWallAtRepos/float64(n) > resyncWallTarget {
		b.Errorf("steady pass of %d repositories took %s, over the target of %.0f s per %d", n, steady.wall, resyncWallTarget, resyncWallAtRepos)
	}
	// The memory target is per repository of a fleet: bounded caches (64
	// open git repositories, gitstore.DefaultMaxOpen) are a fixed cost that
	// a hundred repositories do not amortize, so it is judged, as the wall
	// time is, at a thousand.
	if kib := float64(heap) / 1024 / repos; n >= resyncWallAtRepos && kib > resyncHeapTarget {
		b.Errorf("%.1f KiB of live heap per repository, over the target of %.0f", kib, resyncHeapTarget)
	}
}

// fleetKptfile is the Kptfile of fleet repository i: every other one
// tracks acme/catalog's basens at v1.
func fleetKptfile(i int, repoURL, v1 string) string {
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	if i%2 == 0 {
		kf += "upstream:\n  type: git\n  git:\n    repo: " + repoURL + "\n    directory: /basens\n    ref: basens/v1\n  updateStrategy: resource-merge\n" +
			"upstreamLock:\n  type: git\n  git:\n    repo: " + repoURL + "\n    directory: /basens\n    ref: basens/v1\n    commit: " + v1 + "\n"
	}
	return kf + "info:\n  description: a site's app\n"
}

// endpointLines are the REST endpoints of a pass, per repository.
func endpointLines(d map[string]int64, repos float64) []string {
	var out []string
	for k, v := range d {
		if !strings.HasPrefix(k, "GIT ") {
			out = append(out, fmt.Sprintf("%s: %.3f", k, float64(v)/repos))
		}
	}
	sort.Strings(out)
	return out
}

// writeHeapProfile writes the heap's profile where
// PORCHBOT_BENCH_HEAPPROFILE names, to see what a repository costs.
func writeHeapProfile(b *testing.B) {
	p := os.Getenv("PORCHBOT_BENCH_HEAPPROFILE")
	if p == "" {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
