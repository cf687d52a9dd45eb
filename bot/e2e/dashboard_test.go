package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/dashboard"
	"github.com/porchbot/porchbot/internal/forge"
)

// fastDashboards shortens the dashboard's debounce (settle and interval)
// to a millisecond, so a test waits for refreshes, not for time.
func (w *world) fastDashboards() {
	if w.fastDash {
		return // set once: the bot reads these while it runs
	}
	w.fastDash = true
	d := w.svc.App.Dashboards
	d.Settle, d.Interval = time.Millisecond, time.Millisecond
	w.svc.App.DashboardInterval = time.Millisecond
	w.svc.App.DashboardNow = w.clock.now // the forge's dates, ahead of real time after w.comment
}

// settleDashboards settles the bot and the forge, and the dashboard
// refreshes their events scheduled, until nothing more happens.
func (w *world) settleDashboards() {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.ctx, 2*time.Minute)
	defer cancel()
	for range 20 {
		w.settle()
		before := len(w.svc.Embedded.Forge.Deliveries())
		if err := w.svc.App.Dashboards.Wait(ctx); err != nil {
			w.t.Fatal(err)
		}
		w.settle()
		if len(w.svc.Embedded.Forge.Deliveries()) == before {
			return
		}
	}
	w.t.Fatal("the dashboards never settled")
}

// dashboards are porchbot's dashboard issues of repo, lowest number first.
func (w *world) dashboards(repo string) []*github.Issue {
	w.t.Helper()
	owner, name := splitRepo(repo)
	list, _, err := w.client("alice").Issues.ListByRepo(w.ctx, owner, name, &github.IssueListByRepoOptions{State: "all",
		Labels: []string{dashboard.Label}})
	if err != nil {
		w.t.Fatal(err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].GetNumber() < list[j].GetNumber() })
	return list
}

// dashboard is repo's one dashboard.
func (w *world) dashboard(repo string) *github.Issue {
	w.t.Helper()
	ds := w.dashboards(repo)
	if len(ds) != 1 {
		w.t.Fatalf("%s has %d dashboards, want 1", repo, len(ds))
	}
	return ds[0]
}

// tick edits the dashboard as user, ticking the box of target.
func (w *world) tick(user, repo string, is *github.Issue, box string) {
	w.t.Helper()
	body := is.GetBody()
	if !strings.Contains(body, "- [ ] "+box) {
		w.t.Fatalf("no box %q in the dashboard:\n%s", box, body)
	}
	body = strings.Replace(body, "- [ ] "+box, "- [x] "+box, 1)
	owner, name := splitRepo(repo)
	if _, _, err := w.client(user).Issues.Edit(w.ctx, owner, name, is.GetNumber(), &github.IssueRequest{Body: &body}); err != nil {
		w.t.Fatalf("%s ticks %s: %v", user, box, err)
	}
}

func sumCalls(w *world, before map[string]int64) (total int64, edits int64) {
	for route, n := range w.stats() {
		d := n - before[route]
		total += d
		if route == "PATCH /repos/{owner}/{repo}/issues/{number}" {
			edits += d
		}
	}
	return total, edits
}

// TestDashboardIssue: on install porchbot opens one "Package dashboard"
// issue (a second install event opens no other); a draft pushed shows up
// with its render once the debounce has passed; a box ticked by someone
// who may edit issues but not write is refused as /porch render would be;
// the same box ticked by a writer renders the draft again and the box is
// cleared; a dashboard a person closed stays closed through events and a
// resync, until the configuration changes.
func TestDashboardIssue(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.fastDashboards()
	const repo = "acme/catalog"
	if ds := w.dashboards(repo); len(ds) != 0 {
		t.Fatalf("a dashboard before install: %d", len(ds))
	}

	before := w.stats()
	if err := w.svc.Embedded.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	total, _ := sumCalls(w, before)
	d := w.dashboard(repo)
	if d.GetTitle() != dashboard.Title || d.GetState() != "open" || d.GetUser().GetLogin() != "porchbot[bot]" {
		t.Fatalf("dashboard: %s", github.Stringify(d))
	}
	for _, want := range []string{"## Packages", "- `basens`", "- `network/upf`", "No drafts."} {
		if !strings.Contains(d.GetBody(), want) {
			t.Fatalf("dashboard lacks %q:\n%s", want, d.GetBody())
		}
	}
	t.Logf("install event, %d repositories: %d REST calls", 2, total)
	if n := testutil.ToFloat64(w.svc.Metrics.DashboardSyncs.WithLabelValues("created")); n != 1 {
		t.Fatalf("porchbot_dashboard_syncs_total{outcome=created} = %v, want 1", n)
	}
	if err := w.svc.Embedded.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	d = w.dashboard(repo) // still one

	// A draft: the dashboard shows it with its render, after the debounce.
	head := w.pushDraft("dash", map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: dash\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
	w.settleDashboards()
	d = w.dashboard(repo)
	const box = "<!-- porch:render dash/try -->"
	if !strings.Contains(d.GetBody(), "- [ ] "+box+" `drafts/dash/try`: render passed") {
		t.Fatalf("the draft is not on the dashboard:\n%s", d.GetBody())
	}
	// Proposed: the dashboard shows its approval and who is still needed.
	pr := w.openPull("alice", repo, "drafts/dash/try", "Dash")
	w.settleDashboards()
	d = w.dashboard(repo)
	if want := fmt.Sprintf("- #%d `dash/try`: waiting for approval (0/1); still needed: 1 more of @acme/platform", pr.GetNumber()); !strings.Contains(d.GetBody(), want) {
		t.Fatalf("the proposal is not on the dashboard as %q:\n%s", want, d.GetBody())
	}
	w.approve("bob", repo, pr.GetNumber())
	w.settleDashboards()
	if want := fmt.Sprintf("- #%d `dash/try`: approved (1/1)", pr.GetNumber()); !strings.Contains(w.dashboard(repo).GetBody(), want) {
		t.Fatalf("the approval is not on the dashboard as %q:\n%s", want, w.dashboard(repo).GetBody())
	}

	// One refresh with nothing changed: its cost, and no edit.
	before = w.stats()
	owner, name := splitRepo(repo)
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	w.svc.App.Dashboards.Touch(core.Repo{Owner: owner, Name: name, InstallationID: id, DefaultBranch: "main"})
	w.settleDashboards()
	total, edits := sumCalls(w, before)
	if edits != 0 {
		t.Fatalf("a refresh with nothing changed edited the dashboard %d times", edits)
	}
	t.Logf("refresh of an unchanged dashboard (1 draft, 1 proposal): %d REST calls, 0 edits", total)

	renders := func() int {
		res, _, err := w.client("alice").Checks.ListCheckRunsForRef(w.ctx, owner, name, head,
			&github.ListCheckRunsOptions{CheckName: github.String("porchbot/render"), Filter: github.String("all")})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.CheckRuns)
	}
	rendered := renders()

	// carol may edit issues (triage) but not write: refused, like /porch render.
	if err := w.svc.Embedded.Forge.SetCollaborator(repo, "carol", forge.PermTriage); err != nil {
		t.Fatal(err)
	}
	w.tick("carol", repo, d, box)
	w.settleDashboards()
	if n := renders(); n != rendered {
		t.Fatalf("carol's tick rendered the draft: %d render runs, was %d", n, rendered)
	}
	replies := w.botComments(repo, d.GetNumber())
	if len(replies) != 1 || !strings.Contains(replies[0].GetBody(), "@carol needs write access to acme/catalog to run `/porch render` (their permission: triage)") {
		t.Fatalf("reply to carol's tick: %v", replies)
	}
	d = w.dashboard(repo)
	if !strings.Contains(d.GetBody(), "- [ ] "+box) {
		t.Fatalf("carol's tick was not cleared:\n%s", d.GetBody())
	}

	// bob (write) ticks it: the draft is rendered again, the box cleared.
	w.tick("bob", repo, d, box)
	w.settleDashboards()
	if n := renders(); n != rendered+1 {
		t.Fatalf("bob's tick: %d render runs, want %d", n, rendered+1)
	}
	replies = w.botComments(repo, d.GetNumber())
	if len(replies) != 2 || !strings.Contains(replies[1].GetBody(), "Rendered `dash`") {
		t.Fatalf("reply to bob's tick: %v", replies[len(replies)-1].GetBody())
	}
	if d = w.dashboard(repo); !strings.Contains(d.GetBody(), "- [ ] "+box) {
		t.Fatalf("bob's tick was not cleared:\n%s", d.GetBody())
	}

	// alice closes it: it stays closed through events and a resync.
	closed := "closed"
	if _, _, err := w.client("alice").Issues.Edit(w.ctx, owner, name, d.GetNumber(), &github.IssueRequest{State: &closed}); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	w.pushDraft("later", map[string]string{"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: later\n"})
	w.settleDashboards()
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	if d = w.dashboard(repo); d.GetState() != "closed" || strings.Contains(d.GetBody(), "drafts/later/") {
		t.Fatalf("the dashboard alice closed is %s, and was edited: %v", d.GetState(), strings.Contains(d.GetBody(), "drafts/later/"))
	}

	// The configuration asks again: it is reopened, current.
	dir := w.clone("alice", repo)
	w.write(dir, ".github/porchbot.yaml", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\ndashboard:\n  enabled: true\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Dashboard, please")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settleDashboards()
	if d = w.dashboard(repo); d.GetState() != "open" || !strings.Contains(d.GetBody(), "drafts/later/try") {
		t.Fatalf("after the configuration asked again: %s\n%s", d.GetState(), d.GetBody())
	}
}

// TestDashboardReplicasOpenOne: three replicas handle the same install
// event at once; the repository ends with one open dashboard (a dashboard
// a racing replica made is closed as a duplicate, whichever replica saw
// what), and every replica agrees which one it is.
func TestDashboardReplicasOpenOne(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fl := newFleet(t, w, 2)
	if err := w.svc.Embedded.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	fl.settle()
	for _, r := range fl.replicas {
		if err := r.App.Dashboards.Wait(w.ctx); err != nil {
			t.Fatal(err)
		}
	}
	fl.settle()
	var open []int
	all := w.dashboards("acme/catalog")
	for _, d := range all {
		if d.GetState() == "open" {
			open = append(open, d.GetNumber())
		}
	}
	if len(open) != 1 || open[0] != all[0].GetNumber() {
		t.Fatalf("open dashboards %v of %d made", open, len(all))
	}
	t.Logf("3 replicas, one install event: %d dashboards made, 1 open", len(all))
	// Each replica, syncing now, finds that one and makes no other.
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, "acme/catalog")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fl.replicas {
		out, err := r.App.SyncDashboard(w.ctx, core.Repo{Owner: "acme", Name: "catalog", InstallationID: id, DefaultBranch: "main"}, true)
		if err != nil || out.Number != open[0] || out.Created {
			t.Fatalf("a replica's sync: %+v %v", out, err)
		}
	}
	if n := len(w.dashboards("acme/catalog")); n != len(all) {
		t.Fatalf("syncing again made %d dashboards, had %d", n, len(all))
	}
}

// TestDashboardOnlyWhereThereIsSomething: events in a repository without a
// dashboard cost no REST call for it; the resync opens the missing one; an
// install then finds it (no second), and a repository with nothing of
// porchbot's (a README) gets none.
func TestDashboardOnlyWhereThereIsSomething(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.fastDashboards()
	w.newRepo("acme/plain")
	before := w.stats()
	w.pushDraft("quiet", map[string]string{"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: quiet\n"})
	w.settleDashboards()
	if n := callsSince(w, before, "GET /repos/{owner}/{repo}/issues"); n != 0 {
		t.Fatalf("events in a repository without a dashboard listed issues %d times", n)
	}
	// The resync opens the dashboard that is missing.
	if _, err := w.resync("acme/catalog"); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	first := w.dashboard("acme/catalog").GetNumber()
	if err := w.svc.Embedded.Forge.EmitInstallation("created", "acme", "alice"); err != nil {
		t.Fatal(err)
	}
	w.settleDashboards()
	if ds := w.dashboards("acme/plain"); len(ds) != 0 {
		t.Fatalf("a repository with only a README got %d dashboards", len(ds))
	}
	if d := w.dashboard("acme/catalog"); !strings.Contains(d.GetBody(), "drafts/quiet/try") || d.GetNumber() != first {
		t.Fatalf("acme/catalog's dashboard #%d (the resync's #%d):\n%s", d.GetNumber(), first, d.GetBody())
	}
}
