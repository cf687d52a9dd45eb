package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

// trackingKptfile is a package fetched from repo/dir@v1.
func trackingKptfile(name, repo, dir string) string {
	return upstreamtest.Kptfile(name, repo, dir, "v1", strings.Trim(dir, "/")+"/v1", "0123456789abcdef0123456789abcdef01234567")
}

// downstreamNames lists a lookup's results as repo:package.
func downstreamNames(ds []downstreams.Downstream) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Repo+":"+d.Package)
	}
	return out
}

// upstreamOf names acme/catalog with its installation, as a publish there
// would.
func (w *world) upstreamOf(repo string) core.Repo {
	w.t.Helper()
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		w.t.Fatal(err)
	}
	owner, name := splitRepo(repo)
	return core.Repo{Owner: owner, Name: name, InstallationID: id, DefaultBranch: "main"}
}

func skipped(svc *service.Service, reason string) float64 {
	return testutil.ToFloat64(svc.Metrics.UpstreamsSkipped.WithLabelValues(reason))
}

// TestDownstreamDiscovery: packages pushed to acme/edge-1's deployment
// branch that track acme/catalog (in another URL form) are found from a
// publish's point of view; upstreams elsewhere are skipped with a metric;
// a push that changes a Kptfile moves the package in the registry; a
// downstream whose installation cannot read the upstream is left out; a
// restarted process finds them all again from one resync.
func TestDownstreamDiscovery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fg := w.svc.Embedded.Forge
	catalog := w.upstreamOf("acme/catalog")
	base := fg.BaseURL()

	dir := w.clone("alice", "acme/edge-1")
	w.write(dir, "upf/Kptfile", trackingKptfile("upf", base+"/ACME/Catalog", "network/upf/"))
	w.write(dir, "upf/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: upf\n")
	w.write(dir, "ext/Kptfile", trackingKptfile("ext", "https://github.com/kptdev/kpt.git", "/package-examples/nginx"))
	w.write(dir, "personal/Kptfile", trackingKptfile("personal", base+"/alice/personal.git", "/app"))
	w.write(dir, "local/Kptfile", trackingKptfile("local", "/srv/git/catalog", "/app"))
	w.write(dir, "own/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: own\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Packages from upstreams")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()

	for _, d := range []string{"network/upf", "/network/upf", "network/upf/"} {
		if got := downstreamNames(w.svc.App.DownstreamsOf(w.ctx, catalog, d)); !slices.Equal(got, []string{"acme/edge-1:upf"}) {
			t.Fatalf("downstreams of acme/catalog %s: %v", d, got)
		}
	}
	for reason, want := range map[string]float64{"other_host": 1, "not_installed": 1, "not_remote": 1, "unreadable": 0} {
		if got := skipped(w.svc, reason); got != want {
			t.Errorf("upstreams skipped as %s: %v, want %v", reason, got, want)
		}
	}

	// A push that moves the package to another upstream directory.
	w.write(dir, "upf/Kptfile", trackingKptfile("upf", base+"/acme/catalog.git", "/basens"))
	w.git(dir, "commit", "-q", "-am", "upf now tracks basens")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	if got := w.svc.App.DownstreamsOf(w.ctx, catalog, "network/upf"); len(got) != 0 {
		t.Fatalf("network/upf still has downstreams after the push: %v", downstreamNames(got))
	}
	if got := downstreamNames(w.svc.App.DownstreamsOf(w.ctx, catalog, "basens")); !slices.Equal(got, []string{"acme/edge-1:upf"}) {
		t.Fatalf("downstreams of basens after the push: %v", got)
	}

	// Another installation, beta, whose repository tracks the public
	// acme/catalog (it can read it) and the private acme/vault (it cannot).
	if _, err := fg.CreateRepo("acme", "vault", forge.RepoOptions{Private: true}); err != nil {
		t.Fatal(err)
	}
	vault := catalog
	vault.Name = "vault"
	if _, err := fg.AddOrg("beta", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.CreateRepo("beta", "site", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.Install("beta"); err != nil {
		t.Fatal(err)
	}
	alice, _ := fg.Account("alice")
	if _, err := fg.CommitFiles("beta/site", "main", map[string][]byte{
		"web/Kptfile":    []byte(trackingKptfile("web", base+"/acme/catalog", "/basens")),
		"secret/Kptfile": []byte(trackingKptfile("secret", base+"/Acme/vault.git/", "/app")),
	}, "Packages from acme", alice); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if _, err := w.resync("beta/site"); err != nil {
		t.Fatal(err)
	}
	if got := downstreamNames(w.svc.App.DownstreamsOf(w.ctx, catalog, "basens")); !slices.Equal(got, []string{"acme/edge-1:upf", "beta/site:web"}) {
		t.Fatalf("downstreams of the public acme/catalog basens: %v", got)
	}
	if got := skipped(w.svc, "unreadable"); got != 0 {
		t.Errorf("upstreams skipped as unreadable: %v, want 0", got)
	}
	if got := w.svc.App.DownstreamsOf(w.ctx, vault, "app"); len(got) != 0 {
		t.Fatalf("downstreams of the private acme/vault include beta's, which cannot read it: %v", downstreamNames(got))
	}
	if got := skipped(w.svc, "unreadable"); got != 1 {
		t.Errorf("upstreams skipped as unreadable: %v, want 1", got)
	}

	// A restarted process knows nothing until its resync.
	r := startReplica(t, w, "restarted")
	if got := r.App.DownstreamsOf(w.ctx, catalog, "basens"); len(got) != 0 {
		t.Fatalf("a fresh process knows downstreams before any resync: %v", downstreamNames(got))
	}
	s, err := r.App.Opener.Open(w.ctx, core.Repo{Owner: "acme", Name: "edge-1", InstallationID: catalog.InstallationID, DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	deps := r.ResyncDeps()
	if _, err := resync.Repository(w.ctx, s, deps.API(s), deps); err != nil {
		t.Fatal(err)
	}
	if got := downstreamNames(r.App.DownstreamsOf(w.ctx, catalog, "basens")); !slices.Equal(got, []string{"acme/edge-1:upf"}) {
		t.Fatalf("downstreams of basens after the restarted process's resync: %v", got)
	}
}
