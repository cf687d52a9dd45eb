package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/index"
)

// A degraded view of the downstreams never overwrites a good one (#22):
// the index lists a downstream repository's packages from what porchbot
// knows of that repository, and keeps what its last signed index said of
// a repository it does not know (not visited since the process started,
// a visibility look-up refused); it drops a downstream only when the
// repository was visited and no longer tracks the package.

// trackingWorld is a world where acme/edge-1 and acme/edge-2 (public)
// each track network/upf of acme/catalog as package upf, and a revision of
// network/upf was published since: the index of acme/catalog lists both.
func trackingWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	w.newRepo("acme/edge-2")
	base := w.svc.Embedded.Forge.BaseURL()
	for _, repo := range []string{"acme/edge-1", "acme/edge-2"} {
		dir := w.clone("alice", repo)
		w.write(dir, "upf/Kptfile", trackingKptfile("upf", base+"/"+upstreamRepo+".git", "/"+upstreamPkg))
		w.git(dir, "add", "-A")
		w.git(dir, "commit", "-q", "-m", "The UPF from the catalog")
		w.git(dir, "push", "-q", "origin", "HEAD:main")
		w.settle()
	}
	w.publishUPFSettled(2, w.settle)
	if got := w.indexedDownstreams(1); !slices.Equal(got, []string{"acme/edge-1:upf", "acme/edge-2:upf"}) {
		t.Fatalf("the index before the fault lists %v, want both downstreams", got)
	}
	return w
}

// publishUPFSettled publishes network/upf with n replicas through the
// lifecycle, settled by settle (the world's or a fleet's).
func (w *world) publishUPFSettled(n int, settle func()) {
	w.t.Helper()
	w.publishUpstreamSettled(fmt.Sprintf("replicas-%d", n), func(dir string) {
		const f = "network/upf/deployment.yaml"
		w.write(dir, f, replicasLine.ReplaceAllString(readFile(w.t, dir, f), fmt.Sprintf("replicas: %d", n)))
	}, settle)
}

// indexedDownstreams lists the downstreams (repo:package) of network/upf
// in acme/catalog's index, which must list at least revisions revisions.
func (w *world) indexedDownstreams(revisions int) []string {
	w.t.Helper()
	data := w.indexOnBranch(upstreamRepo)
	idx, err := index.Decode(data)
	if err != nil {
		w.t.Fatal(err)
	}
	p := indexPackage(idx, upstreamPkg)
	if p == nil || len(p.Revisions) < revisions {
		w.t.Fatalf("the index does not list %d revisions of %s:\n%s", revisions, upstreamPkg, data)
	}
	var out []string
	for _, d := range p.Downstreams {
		out = append(out, d.Repository+":"+d.Package)
	}
	return out
}

// restarted is a fleet of one new porchbot process, the only one that
// receives webhooks from now on: it is given none of the deliveries made
// before it started, and its resync has visited nothing.
func restarted(t *testing.T, w *world) *fleet {
	t.Helper()
	f := newFleet(t, w, 1)
	f.replicas, f.orders = f.replicas[1:], f.orders[1:]
	f.sent = len(w.svc.Embedded.Forge.Deliveries())
	return f
}

// TestIndexKeepsDownstreamsAfterARestart: a new process publishes a
// revision before its resync visited the downstream repositories. The
// index still lists them (it used to list none until a full pass).
func TestIndexKeepsDownstreamsAfterARestart(t *testing.T) {
	t.Parallel()
	w := trackingWorld(t)
	f := restarted(t, w)
	w.publishUPFSettled(3, f.settle)
	if got := w.indexedDownstreams(2); !slices.Equal(got, []string{"acme/edge-1:upf", "acme/edge-2:upf"}) {
		t.Fatalf("after a restart the index lists %v, want both downstreams kept", got)
	}
}

// TestIndexDropsADownstreamThatStoppedTracking: after a restart, acme/edge-2
// removes its package upf (the push is the new process's visit of it);
// the next publish drops edge-2 from the index and keeps edge-1, which the
// process has not visited.
func TestIndexDropsADownstreamThatStoppedTracking(t *testing.T) {
	t.Parallel()
	w := trackingWorld(t)
	f := restarted(t, w)
	dir := w.clone("alice", "acme/edge-2")
	w.git(dir, "rm", "-q", "-r", "upf")
	w.git(dir, "commit", "-q", "-m", "No UPF here any more")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	f.settle()
	w.publishUPFSettled(3, f.settle)
	if got := w.indexedDownstreams(2); !slices.Equal(got, []string{"acme/edge-1:upf"}) {
		t.Fatalf("the index lists %v, want edge-1 kept and edge-2 dropped", got)
	}
}

// TestIndexKeepsDownstreamsWhenRateLimited: the rate limit runs out while
// the resync reads acme/edge-1 again (the forge refuses every call of that
// repository, its visibility look-up among them). The next publish keeps
// edge-1 in the index (it used to drop it as "visibility unknown").
func TestIndexKeepsDownstreamsWhenRateLimited(t *testing.T) {
	t.Parallel()
	w := trackingWorld(t)
	fg := w.svc.Embedded.Forge
	const refusals = 1000
	fg.SetFaults(forge.Faults{PrimaryRateLimit: refusals, PrimaryResetSeconds: 3600, PathPrefix: "/repos/acme/edge-1"})
	_, _ = w.resync("acme/edge-1") // fails where the calls were refused
	left := fg.Faults().PrimaryRateLimit
	fg.SetFaults(forge.Faults{})
	if left == refusals {
		t.Fatal("no call of acme/edge-1 was refused: the test proves nothing")
	}
	w.publishUPFSettled(3, w.settle)
	if got := w.indexedDownstreams(2); !slices.Equal(got, []string{"acme/edge-1:upf", "acme/edge-2:upf"}) {
		t.Fatalf("after a rate-limited visit the index lists %v, want both downstreams kept", got)
	}
}
