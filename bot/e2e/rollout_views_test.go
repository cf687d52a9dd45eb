package e2e

import (
	"bytes"
	"strings"
	"testing"

	botcatalog "github.com/porchbot/porchbot/bot/catalog"
	"github.com/porchbot/porchbot/internal/catalog"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/index"
)

// TestRolloutViews (#27 §2): the rollout of network/upf in acme/catalog
// shows in the catalog's dashboard and in its package index. After the
// canary wave met the rule and the early wave failed, the dashboard of
// acme/catalog, refreshed by the rollout's step (the deployment reports
// are events of the sites, not of the catalog), says the rollout stopped,
// why, and each wave's counts; index.yaml on porch/index holds the
// rollout's summary; the catalog's package page counts it over the
// downstreams its viewer may read. The refresh costs the dashboard's own
// calls.
func TestRolloutViews(t *testing.T) {
	t.Parallel()
	w, sites := rolloutFleet(t)
	canary, early := sites[:2], sites[2:6]
	w.fastDashboards()
	if err := w.svc.Embedded.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	if body := w.dashboard(upstreamRepo).GetBody(); !strings.Contains(body, "## Rollouts\n\n- `network/upf` v1: ") {
		t.Fatalf("the dashboard has no rollout of v1:\n%s", body)
	}

	v2 := w.publishUpstream("v2", upstreamV2(w))
	for _, s := range canary {
		w.mergeUpdate(s)
		w.fluxReports(s, "success", "Applied")
	}
	if got := w.withUpdates(sites, v2); strings.Join(got, ",") != strings.Join(early, ",") {
		t.Fatalf("the canary wave is healthy: updates in %v, want the early wave %v", got, early)
	}
	for _, s := range early {
		w.mergeUpdate(s)
	}
	for _, s := range early[:3] {
		w.fluxReports(s, "success", "Applied")
	}
	w.settleDashboards()
	if body := w.dashboard(upstreamRepo).GetBody(); !strings.Contains(body, "- `network/upf` v2: ⏳ rolling — wave early: 3 of 4 downstreams met the rule\n") {
		t.Fatalf("the dashboard before the failure:\n%s", body)
	}

	// The failure: the report is an event of acme/site-05 (a report
	// refreshes no dashboard of its own repository); the rollout's step
	// refreshes the catalog's. Reading the rollout for the dashboard and the index
	// costs no REST call: the calls are the dashboards' own (list the
	// dashboard issues, the edit).
	fg := w.svc.Embedded.Forge
	head := w.branchSHA(early[3], "main")
	before := fg.Stats().Snapshot()
	w.fluxReportsOn(early[3], head, "failure", "Health check failed: deployment/upf not ready")
	w.settleDashboards()
	cost := forge.Counted(forge.StatsDelta(before, fg.Stats().Snapshot()))
	t.Logf("the failure report, the rollout's step and the dashboards' refreshes: %d REST calls (the report included), %v", forge.SumCounted(cost), cost)
	if n := cost["PATCH /repos/{owner}/{repo}/issues/{number}"]; n != 1 {
		t.Errorf("%d issue edits after the failure, want 1 (the catalog's dashboard): %v", n, cost)
	}
	for route, n := range cost {
		switch {
		case strings.HasPrefix(route, "GIT "), route == "POST /repos/{owner}/{repo}/statuses/{sha}",
			route == "GET /repos/{owner}/{repo}/issues", route == "PATCH /repos/{owner}/{repo}/issues/{number}":
		default:
			t.Errorf("the failure report cost %d calls of %s: the rollout's views should cost only the dashboards' own", n, route)
		}
	}

	body := w.dashboard(upstreamRepo).GetBody()
	for _, want := range []string{
		"## Rollouts\n\n- `network/upf` v2: 🛑 stopped — wave `early` failed: `acme/site-05` `upf`: `kustomization/upf/5f0a1a2b` reported failure\n",
		"  - waves: `canary` ✅ done 2/2 · `early` ❌ failed 3/4 (4 merged) · `rest` waiting 0/6\n",
		"  - wave `early`: `acme/site-05` `upf`: `kustomization/upf/5f0a1a2b` reported **failure**: Health check failed: deployment/upf not ready (`https://flux.example.com/site-05`)\n",
		"  - An approver's `/porch rollout resume network/upf` acknowledges the failures",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard does not say %q:\n%s", want, body)
		}
	}

	idx, err := index.Decode(w.indexOnBranch(upstreamRepo))
	if err != nil {
		t.Fatal(err)
	}
	var got *index.Rollout
	for _, p := range idx.Packages {
		if p.Name == upstreamPkg {
			got = p.Rollout
		}
	}
	want := index.Rollout{Revision: 2, State: "stopped", Downstreams: 12, Merged: 6, Healthy: 5, Failed: 1}
	if got == nil || *got != want {
		t.Fatalf("the index's rollout of %s is %+v, want %+v\n%s", upstreamPkg, got, want, w.indexOnBranch(upstreamRepo))
	}
	if data := string(w.indexOnBranch(upstreamRepo)); !strings.Contains(data, "  rollout:\n    revision: 2\n    state: stopped\n    downstreams: 12\n    merged: 6\n    healthy: 5\n    failed: 1\n") {
		t.Errorf("the rollout is not written as docs/index.md shows it:\n%s", data)
	}

	// The catalog's package page: the same rollout, counted over the
	// downstreams its viewer may read.
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, upstreamRepo)
	if err != nil {
		t.Fatal(err)
	}
	loader := &botcatalog.RepoLoader{Sessions: w.svc.App.Opener, Downstreams: w.svc.App, Rollouts: w.svc.App.Rollouts.Plans(),
		Web: w.svc.Embedded.Forge.BaseURL() + "/"}
	view, err := loader.Load(w.ctx, catalog.RepoRef{Owner: "acme", Name: "catalog", InstallationID: id, DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		reads func(string) bool
		want  string
	}{
		{"a viewer of every site", func(string) bool { return true }, "v2, stopped: deployed and healthy in 5 of 12 downstreams, failed in 1."},
		{"a viewer who cannot read acme/site-05", func(r string) bool { return r != "acme/site-05" }, "v2, stopped: deployed and healthy in 5 of 11 downstreams, failed in 0."},
	} {
		seen := catalog.Viewer{Login: "viewer", CanRead: c.reads}.Filter(view)
		p, ok := seen.Package(upstreamPkg)
		if !ok {
			t.Fatalf("the catalog has no %s", upstreamPkg)
		}
		var b bytes.Buffer
		if err := catalog.Render(&b, catalog.PagePackage, catalog.Page{Title: upstreamPkg, Login: "viewer", Data: catalog.PackageView{Repo: seen, Package: p}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: the package page does not say %q:\n%s", c.name, c.want, b.String())
		}
	}
}
