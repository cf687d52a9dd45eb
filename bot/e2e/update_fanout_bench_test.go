package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/forge"
)

// fanoutRepos is how many downstream repositories one publish reaches in
// BenchmarkUpdateFanout (the 200; PORCHBOT_BENCH_TARGETS runs it
// smaller, as BenchmarkVariantFanout).
func fanoutRepos() int { return variantTargets() }

// fanoutLatency is the latency the forge adds to every REST call during
// the fan-out.
const fanoutLatency = 50 * time.Millisecond

// BenchmarkUpdateFanout measures the fan-out of one upstream publish to
// fanoutRepos downstream repositories on the forge, each holding package
// upf locked to network/upf/v1 (as kpt pkg get writes it, pushed to main
// and indexed by the bot from the push), with fanoutLatency on every REST
// call: porchbot's REST calls and git operations per update pull request
// (the fan-out itself, then the pull requests' own lifecycle run by their
// webhooks: render check, approval), wall time, peak heap, and refusals
// for GitHub's secondary limit. The fan-out is the App's own
// (App.Updates.Published, what a publish runs).
func BenchmarkUpdateFanout(b *testing.B) { benchUpdateFanout(b, false) }

// BenchmarkUpdateFanoutPrivate is BenchmarkUpdateFanout in a private
// fleet: acme/catalog and every downstream repository private, each
// downstream's commit its own, authored as alice's account (the forge
// links it to her), so that the flow rule (internal/flow) needs each
// downstream's visibility, each commit's author and her read access on
// the catalog, and lets every update through. It reports the first
// fan-out, then the flow's calls in a second fan-out of the same
// revision, caches warm (the pull requests then exist: only the flow's
// calls of that run are comparable).
func BenchmarkUpdateFanoutPrivate(b *testing.B) { benchUpdateFanout(b, true) }

// privateCatalogSeed is the forge's seed with acme/catalog private.
func privateCatalogSeed(tb testing.TB) string {
	tb.Helper()
	const seed = "../../testdata/forge/seed.yaml"
	abs, err := filepath.Abs(filepath.Dir(seed))
	if err != nil {
		tb.Fatal(err)
	}
	text := readFile(tb, filepath.Dir(seed), filepath.Base(seed))
	const files = "    files: catalog\n"
	if !strings.Contains(text, files) {
		tb.Fatalf("the seed no longer gives acme/catalog %q", files)
	}
	text = strings.Replace(text, files, "    private: true\n    files: "+filepath.Join(abs, "catalog")+"\n", 1)
	p := filepath.Join(tb.TempDir(), "seed.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

func benchUpdateFanout(b *testing.B, private bool) {
	args := []string{"--queue-size", "20000"}
	if private {
		args = append(args, "--forge-seed", privateCatalogSeed(b))
	}
	w := newWorld(b, args...)
	fanoutRepos := fanoutRepos()
	authorEmail := "alice@example.com"
	if private {
		acct, _ := w.svc.Embedded.Forge.Account("alice")
		authorEmail = acct.Email
	}
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	v1 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"]
	w.publishUpstream("v2", upstreamV2(w))
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v2"]

	// One work tree with the downstream package at v1, pushed to every
	// downstream repository's main.
	dir := w.siteAtV1(filepath.Join(b.TempDir(), "down"), v1, authorEmail)
	as := []string{"-c", "user.name=alice", "-c", "user.email=" + authorEmail}
	base := strings.Replace(w.svc.Embedded.Forge.BaseURL(), "http://", "http://alice:alice-token@", 1)
	for i := 0; i < fanoutRepos; i++ {
		name := fmt.Sprintf("acme/site-%03d", i)
		if _, _, err := w.client("alice").Repositories.Create(w.ctx, "acme", &github.Repository{Name: github.String(fmt.Sprintf("site-%03d", i)),
			Private: github.Bool(private)}); err != nil {
			b.Fatal(err)
		}
		if private { // a commit of its own: its author is looked up once
			w.git(dir, append(as, "commit", "-q", "--amend", "-m", "kpt pkg get the UPF into "+name)...)
		}
		w.git(dir, "push", "-q", base+"/"+name+".git", "HEAD:main")
	}
	w.settle()

	up, err := w.svc.App.OpenRepo(w.ctx, upstreamRepo)
	if err != nil {
		b.Fatal(err)
	}
	rev := publish.PublishedRevision{Package: upstreamPkg, Revision: 2, Tag: upstreamPkg + "/v2", Commit: plumbing.NewHash(v2sha)}
	// The publish hands the fan-out the release it just made, as here.
	owner, name, _ := strings.Cut(upstreamRepo, "/")
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, owner, name, rev.Tag)
	if err != nil {
		b.Fatalf("the publish made no release of %s: %v", rev.Tag, err)
	}
	rev.Release = hubRelease(rel)
	// The publish's event gives the upstream's visibility, which the flow
	// rule (internal/flow) keeps, as here; in the private fleet, where the
	// rule needs them, the downstream repositories' (their pushes gave
	// them) are forgotten: a publish comes long after.
	info, _, err := w.client("alice").Repositories.Get(w.ctx, owner, name)
	if err != nil {
		b.Fatal(err)
	}
	if private {
		w.svc.App.Flows.Visibilities.Forget()
	}
	w.svc.App.Flows.Remember(ghclient.RepositoryOf(info))
	fg := w.svc.Embedded.Forge
	// The webhooks the fan-out causes wait in a sink until it is over, so
	// its own calls are counted apart from the pull requests' lifecycle
	// (handed to the bot afterwards, as a fleet of one replica).
	fl := sinkFleet(b, w)
	fg.SetFaults(forge.Faults{LatencyMs: int(fanoutLatency / time.Millisecond)})
	refusedBefore := refusals(b, w)

	stopHeap := heapPeaks()

	b.ResetTimer()
	before := fg.Stats().Snapshot()
	start := time.Now()
	results, err := w.svc.App.Updates.Published(w.ctx, up, []publish.PublishedRevision{rev})
	wall := time.Since(start)
	fanout := forge.StatsDelta(before, fg.Stats().Snapshot())
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	mid := fg.Stats().Snapshot()
	fl.settle()
	follow := forge.StatsDelta(mid, fg.Stats().Snapshot())
	peak, _ := stopHeap()
	fg.SetFaults(forge.Faults{})

	opened := 0
	for _, r := range results {
		if r.Err == nil && r.Outcome != nil && r.Outcome.State == updates.Opened {
			opened++
		}
	}
	if opened != fanoutRepos {
		b.Fatalf("%d update pull requests opened of %d", opened, fanoutRepos)
	}
	git := func(d map[string]int64) int64 {
		return d["GIT info-refs"] + d["GIT upload-pack"] + d["GIT receive-pack"]
	}
	n := float64(fanoutRepos)
	restPer, gitPer := float64(forge.SumCounted(fanout))/n, float64(git(fanout))/n
	b.ReportMetric(restPer, "rest-calls/update-pr")
	b.ReportMetric(gitPer, "git-requests/update-pr")
	b.ReportMetric(float64(forge.SumCounted(follow))/n, "follow-up-rest-calls/update-pr")
	b.ReportMetric(wall.Seconds(), "fanout-s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	refused := refusals(b, w) - refusedBefore
	b.ReportMetric(refused, "secondary-limit-refusals")

	var calls []string
	for k, v := range fanout {
		if !strings.HasPrefix(k, "GIT ") {
			calls = append(calls, fmt.Sprintf("%s: %.2f", k, float64(v)/n))
		}
	}
	sort.Strings(calls)
	fmt.Fprintf(os.Stdout, "\nupdate fan-out of one publish to %d repositories (%s per REST call):\n"+
		"  REST calls per update PR:   %.2f (target ≤ 3; Renovate ≈ 6)\n  git requests per update PR: %.2f (info/refs, upload-pack, receive-pack: one fetch, one push)\n"+
		"  follow-up REST per PR:      %.2f (the PR's own webhooks: render check, approval)\n  wall time:                  %s (%.0f ms per PR)\n"+
		"  peak heap (bot + forge):    %.1f MiB\n  secondary-limit refusals:   %.0f\n  per PR by endpoint:\n    %s\n",
		fanoutRepos, fanoutLatency, restPer, gitPer, float64(forge.SumCounted(follow))/n, wall.Round(time.Millisecond),
		float64(wall.Milliseconds())/n, float64(peak)/(1<<20), refused, strings.Join(calls, "\n    "))
	if private {
		benchPrivateSteady(b, w, up, info, rev, fanout, n)
	}
	// A missed target fails the run (the figures above say by how much).
	if restPer > updateTarget && !private {
		b.Errorf("%.2f REST calls per update pull request, over the target of %d", restPer, updateTarget)
	}
	if refused > 0 {
		b.Errorf("%v calls refused for GitHub's secondary limit", refused)
	}
}

// flowCalls counts, in a fan-out's calls, those the flow rule makes
// (internal/flow): visibilities (the installation's list, a repository),
// authors of commits, permissions.
func flowCalls(d map[string]int64) int64 {
	return d["GET /installation/repositories"] + d["GET /repos/{owner}/{repo}"] + d["GET /repos/{owner}/{repo}/commits/{ref:.+}"] +
		d["GET /repos/{owner}/{repo}/collaborators/{user}/permission"]
}

// benchPrivateSteady fans rev out a second time as a later publish
// would (the authors of the commits known for good, the visibilities
// forgotten) and reports the flow's calls per update pull request in both
// fan-outs, and the steady cost of an update pull request: the first
// fan-out's without its own flow calls, with the second's (the second
// run finds the pull requests made: its other calls are not an update's).
// The calls once per fan-out (the installation's list, the requester's
// access) are told apart: over the target per pull request, the run fails.
func benchPrivateSteady(b *testing.B, w *world, up *core.Session, upstreamInfo *github.Repository, rev publish.PublishedRevision,
	first map[string]int64, n float64) {
	fg := w.svc.Embedded.Forge
	fl := sinkFleet(b, w)
	w.svc.App.Flows.Visibilities.Forget() // a later publish: a minute gone
	w.svc.App.Flows.Remember(ghclient.RepositoryOf(upstreamInfo))
	before := fg.Stats().Snapshot()
	if _, err := w.svc.App.Updates.Published(w.ctx, up, []publish.PublishedRevision{rev}); err != nil {
		b.Fatal(err)
	}
	second := forge.StatsDelta(before, fg.Stats().Snapshot())
	fl.settle()
	flowFirst, flowSteady := float64(flowCalls(first))/n, float64(flowCalls(second))/n
	// Counted in calls, not their ratios (no rounding in the verdict).
	steadyCalls := forge.SumCounted(first) - flowCalls(first) + flowCalls(second)
	steady := float64(steadyCalls) / n
	perFanout := second["GET /installation/repositories"] + second["GET /repos/{owner}/{repo}/collaborators/{user}/permission"]
	b.ReportMetric(flowFirst, "flow-rest-calls/update-pr")
	b.ReportMetric(flowSteady, "steady-flow-rest-calls/update-pr")
	b.ReportMetric(steady, "steady-rest-calls/update-pr")
	fmt.Fprintf(os.Stdout, "private fleet: the flow rule's REST calls per update PR: %.2f in the first fan-out (each downstream commit's author, "+
		"once for good; pages of the installation's list; alice's access, a minute), %.2f in a later one\n"+
		"  steady REST calls per update PR: %.2f (target ≤ 3): %.2f per PR and %d per fan-out (the installation's list, alice's access)\n",
		flowFirst, flowSteady, steady, steady-float64(perFanout)/n, perFanout)
	if perPR := steadyCalls - perFanout; float64(perPR) > updateTarget*n {
		b.Errorf("%.2f REST calls per update pull request in a private fleet, caches warm, over the target of %d", float64(perPR)/n, updateTarget)
	}
}

// updateTarget is the budget of REST calls per update pull request
// (half Renovate's).
const updateTarget = 3

// siteAtV1 makes dir a one-commit work tree (on main, authored as alice
// with email) holding network/upf@v1 as package upf, as kpt pkg get
// leaves it (v1 is the revision's commit), and a README: what a downstream
// site pushes to its main. It returns dir.
func (w *world) siteAtV1(dir, v1, email string) string {
	w.t.Helper()
	src := w.clone("alice", upstreamRepo)
	w.git(src, "checkout", "-q", upstreamPkg+"/v1")
	repoURL := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "catalog"), ".git")
	for _, f := range []string{"deployment.yaml", "service.yaml"} {
		w.write(dir, "upf/"+f, readFile(w.t, src, upstreamPkg+"/"+f))
	}
	lock := "  git:\n    repo: " + repoURL + "\n    directory: /network/upf\n    ref: network/upf/v1\n"
	w.write(dir, "upf/Kptfile", strings.Replace(readFile(w.t, src, upstreamPkg+"/Kptfile"), "info:",
		"upstream:\n  type: git\n"+lock+"  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n"+lock+"    commit: "+v1+"\ninfo:", 1))
	w.write(dir, "README.md", "# a downstream site\n")
	w.git("", "init", "-q", "-b", "main", dir)
	as := []string{"-c", "user.name=alice", "-c", "user.email=" + email}
	w.git(dir, append(as, "add", "-A")...)
	w.git(dir, append(as, "commit", "-q", "-m", "kpt pkg get the UPF")...)
	return dir
}
