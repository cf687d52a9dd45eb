package e2e

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

// Who depends on what (#27 §3, docs/downstreams.md): /porch dependents in
// the upstream repository, and the deletion of a package others track.

// dependentsWorld is acme/catalog (public) with network/upf published as
// v1 and v2, tracked at v1 by package upf of the public acme/edge-1 and of
// the private acme/private-site (alice's alone), each a Kptfile as kpt pkg
// get writes it pushed to main. It returns an issue of acme/catalog.
func dependentsWorld(t *testing.T) (*world, int) {
	t.Helper()
	w := newWorld(t)
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	v1 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"]
	w.publishUpstream("v2", upstreamV2(w))
	if _, err := w.svc.Embedded.Forge.CreateRepo("acme", "private-site", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{"acme/edge-1", "acme/private-site"} {
		w.trackUPF(repo, "upf", v1)
	}
	return w, w.createIssue("alice", upstreamRepo, "Who uses the UPF?")
}

// trackUPF pushes to repo's main a package pkg tracking network/upf at
// v1 (commit v1), as kpt pkg get writes it.
func (w *world) trackUPF(repo, pkg, v1 string) {
	w.t.Helper()
	url := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "catalog"), ".git")
	dir := w.clone("alice", repo)
	w.write(dir, pkg+"/Kptfile", upstreamtest.Kptfile(pkg, url, "/"+upstreamPkg, upstreamPkg+"/v1", upstreamPkg+"/v1", v1))
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "The UPF from the catalog")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
}

// dependents comments /porch dependents arg on issue n of acme/catalog as
// alice and returns porchbot's reply and the REST calls porchbot made for
// it (alice's own comment left out).
func (w *world) dependents(n int, arg string) (string, int64) {
	w.t.Helper()
	before := w.svc.Embedded.Forge.Stats().Snapshot()
	c := w.comment("alice", upstreamRepo, n, "/porch dependents "+arg)
	w.settle()
	calls := forge.StatsDelta(before, w.svc.Embedded.Forge.Stats().Snapshot())
	w.t.Logf("/porch dependents %s: %v", arg, forge.Counted(calls))
	return w.replyTo(upstreamRepo, n, c).GetBody(), forge.SumCounted(calls) - 1
}

// TestDependentsCommand: /porch dependents network/upf in the public
// acme/catalog names acme/edge-1's upf, at v1 and behind v2, and counts the
// private acme/private-site's without naming it; until a resync pass has
// seen every repository it says the list may be partial, after one it does
// not. It costs porchbot at most 3 REST calls (the claim, the commenter's
// permission, the reply) however many downstreams there are. A package
// that does not exist gets the nearest names.
func TestDependentsCommand(t *testing.T) {
	t.Parallel()
	w, issue := dependentsWorld(t)

	reply, calls := w.dependents(issue, upstreamPkg)
	for _, want := range []string{
		"**2 downstream packages** are known to track `network/upf` of `acme/catalog` (latest revision `network/upf/v2`); 1 of those shown is behind.",
		"| `acme/edge-1` | `upf` | `v1` | behind (1 revision) |",
		"And 1 in repositories this repository's readers cannot see",
		"this list may be partial",
	} {
		if !strings.Contains(reply, want) {
			t.Errorf("the reply lacks %q:\n%s", want, reply)
		}
	}
	if strings.Contains(reply, "private-site") {
		t.Errorf("the reply in the public acme/catalog names the private acme/private-site:\n%s", reply)
	}
	if calls > 3 {
		t.Errorf("/porch dependents cost %d REST calls, want at most 3", calls)
	}

	// A full resync pass: the registry has seen every repository. Another
	// public downstream costs no more.
	w.newRepo("acme/edge-2")
	w.trackUPF("acme/edge-2", "core/upf", w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"])
	w.resyncPass(w.resyncDepsAlone())
	reply, again := w.dependents(issue, upstreamPkg)
	if !strings.Contains(reply, "| `acme/edge-2` | `core/upf` | `v1` | behind (1 revision) |") ||
		strings.Contains(reply, "partial") || strings.Contains(reply, "private-site") || !strings.Contains(reply, "And 1 in repositories") {
		t.Errorf("the reply after a full resync pass:\n%s", reply)
	}
	if again > calls { // the commenter's permission is reused for a minute: 2
		t.Errorf("/porch dependents cost %d REST calls with 3 downstreams, %d with 2", again, calls)
	}

	reply, _ = w.dependents(issue, "network/up")
	if !strings.Contains(reply, "There is no package `network/up` on `main`") || !strings.Contains(reply, "Did you mean `network/upf`") {
		t.Errorf("an unknown package:\n%s", reply)
	}
}

// TestDeleteWithDownstreams: /porch delete network/upf, which acme/edge-1
// and the private acme/private-site track, opens a deletion proposal that
// lists acme/edge-1's package and counts the other. bob's approving review
// leaves porchbot/approval waiting and saying why; alice's own
// /porch approve --orphan-downstreams does not count (she asked for the
// deletion); bob's does, and the merged deletion removes the package and
// keeps its revisions.
func TestDeleteWithDownstreams(t *testing.T) {
	t.Parallel()
	w, issue := dependentsWorld(t)
	c := w.comment("alice", upstreamRepo, issue, "/porch delete "+upstreamPkg)
	w.settle()
	pr := w.pullFrom(upstreamRepo, "drafts/network/upf/delete")
	if pr == nil {
		t.Fatalf("no deletion proposal; reply:\n%s", w.replyTo(upstreamRepo, issue, c).GetBody())
	}
	n := pr.GetNumber()
	body := pr.GetBody()
	for _, want := range []string{"### Downstream packages", "| `acme/edge-1` | `upf` | `v1` | behind (1 revision) |",
		"And 1 in repositories this repository's readers cannot see", "`/porch approve --orphan-downstreams`"} {
		if !strings.Contains(body, want) {
			t.Errorf("the deletion proposal's body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "private-site") {
		t.Errorf("the body names the private acme/private-site:\n%s", body)
	}

	w.approve("bob", upstreamRepo, n)
	w.settle()
	head := w.pull(upstreamRepo, n).GetHead().GetSHA()
	run := w.checkRun(upstreamRepo, head, "porchbot/approval")
	// No resync pass has run: porchbot says more may track it.
	const why = "deletes `network/upf`, which 2 downstream packages use (or more: porchbot has not seen every repository yet): " +
		"`/porch approve --orphan-downstreams` to publish the deletion anyway"
	if run.GetConclusion() != "action_required" || !strings.Contains(run.GetOutput().GetSummary(), why) ||
		!strings.Contains(run.GetOutput().GetTitle(), "--orphan-downstreams") {
		t.Fatalf("after bob's review: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	c = w.comment("alice", upstreamRepo, n, "/porch approve --orphan-downstreams")
	w.settle()
	if reply := w.replyTo(upstreamRepo, n, c).GetBody(); !strings.Contains(reply, "does not count") {
		t.Errorf("alice's acknowledgement of her own deletion:\n%s", reply)
	}
	if run := w.checkRun(upstreamRepo, head, "porchbot/approval"); run.GetConclusion() != "action_required" {
		t.Fatalf("alice's acknowledgement counted: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	c = w.comment("bob", upstreamRepo, n, "/porch approve --orphan-downstreams")
	w.settle()
	if reply := w.replyTo(upstreamRepo, n, c).GetBody(); !strings.Contains(reply, "acknowledging that deleting `network/upf`") {
		t.Errorf("bob's acknowledgement:\n%s", reply)
	}
	if run := w.checkRun(upstreamRepo, head, "porchbot/approval"); run.GetConclusion() != "success" ||
		!strings.Contains(run.GetOutput().GetSummary(), "acknowledges the orphaned downstreams") {
		t.Fatalf("after bob's acknowledgement: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	w.merge("alice", upstreamRepo, n)
	w.settle()
	if _, ok := w.file(upstreamRepo, "main", upstreamPkg+"/Kptfile"); ok {
		t.Fatal("network/upf is still on main after the deletion merged")
	}
	if revs := w.revisions(upstreamRepo, upstreamPkg); len(revs) != 2 {
		t.Errorf("network/upf's revisions after the deletion: %v", revs)
	}
	if got := w.botCommentsWith(upstreamRepo, n, "was deleted from"); len(got) != 1 {
		t.Errorf("%d comments say the package was deleted", len(got))
	}
}
