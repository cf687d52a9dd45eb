package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/packages"
)

// Tags porchbot did not make (docs/security.md, "A revision is what
// porchbot published under a verdict").

// handTag pushes, as user, a change of network/upf straight to main of
// the upstream and the tag network/upf/v2 on it; annotate, when set, makes
// it an annotated tag with that message. It returns the tagged commit.
func (w *world) handTag(user, annotate string) string {
	w.t.Helper()
	return w.handTagN(user, 2, annotate)
}

// handTagN is handTag for the tag network/upf/v<n>.
func (w *world) handTagN(user string, n int, annotate string) string {
	w.t.Helper()
	dir := w.clone(user, upstreamRepo)
	w.replaceIn(dir, upstreamPkg+"/deployment.yaml", "upf:1.4.2", "upf:6.6.6")
	w.git(dir, "commit", "-q", "-am", "An image nobody reviewed")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	tag := packages.TagName(upstreamPkg, n)
	if annotate == "" {
		w.git(dir, "tag", tag)
	} else {
		msg := filepath.Join(w.t.TempDir(), "msg")
		if err := os.WriteFile(msg, []byte(annotate), 0o600); err != nil {
			w.t.Fatal(err)
		}
		w.git(dir, "tag", "-a", "-F", msg, tag)
	}
	w.git(dir, "push", "-q", "origin", "refs/tags/"+tag)
	w.settle()
	return w.git(dir, "rev-parse", "HEAD")
}

// wantNotARevision: the hand tag network/upf/v2 on commit got no release
// and no update pull request in the downstreams, even after a resync of
// the upstream and of the downstreams; its commit has a failed
// porchbot/publish check run saying why and what to do; the dashboard
// and /porch list show it with why.
func (w *world) wantNotARevision(commit, why string) {
	w.t.Helper()
	w.fastDashboards() // each resync refreshes the dashboard
	for _, repo := range append([]string{upstreamRepo}, downstreamRepos...) {
		if _, err := w.resync(repo); err != nil {
			w.t.Fatalf("resync %s: %v", repo, err)
		}
		w.settle()
	}
	if rels := w.releases(upstreamRepo); contains(rels, upstreamPkg+"/v2") {
		w.t.Fatalf("a release for the hand-pushed tag: %v", rels)
	}
	for _, repo := range downstreamRepos {
		if prs := w.updatePulls(repo); len(prs) != 0 {
			w.t.Fatalf("%s: %d update pull requests from a hand-pushed tag: %s", repo, len(prs), prs[0].GetTitle())
		}
	}
	var found bool
	for _, cr := range w.publishChecks(upstreamRepo, commit) {
		if cr.GetConclusion() == "failure" && strings.Contains(cr.GetOutput().GetTitle(), "Not a porchbot revision: "+upstreamPkg+"/v2") &&
			strings.Contains(cr.GetOutput().GetSummary(), "`/porch publish "+upstreamPkg+"`") && strings.Contains(cr.GetOutput().GetSummary(), why) {
			found = true
		}
	}
	if !found {
		w.t.Fatalf("no failed porchbot/publish check run on %s saying %q: %d runs", commit, why, len(w.publishChecks(upstreamRepo, commit)))
	}
	if body := w.dashboard(upstreamRepo).GetBody(); !strings.Contains(body, "Tags that are not porchbot's revisions") ||
		!strings.Contains(body, "`"+upstreamPkg+"/v2`") || !strings.Contains(body, why) {
		w.t.Fatalf("the dashboard does not show the hand-pushed tag:\n%s", body)
	}
	issue := w.createIssue("carol", upstreamRepo, "What is published?")
	c := w.comment("bob", upstreamRepo, issue, "/porch list")
	w.settle()
	if body := w.replyTo(upstreamRepo, issue, c).GetBody(); !strings.Contains(body, "Tags that are not porchbot's revisions") ||
		!strings.Contains(body, "`"+upstreamPkg+"/v2`") || !strings.Contains(body, why) {
		w.t.Fatalf("/porch list does not show the hand-pushed tag:\n%s", body)
	}
}

// TestHandPushedTagIsNotARevision: alice (an approver with write access)
// pushes a change of the upstream package straight to main and tags it
// network/upf/v2 by hand. It is no revision: no release, no update pull
// request downstream (not from the resync, not by /porch upgrade --to v2
// either), a failed porchbot/publish check run, a row in /porch list and
// on the dashboard. Her own /porch publish
// does not adopt it; bob's does: the tag becomes porchbot's signed tag on
// the same commit, gets its release, and the downstreams their update.
func TestHandPushedTagIsNotARevision(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	tagged := w.handTag("alice", "")
	w.wantNotARevision(tagged, "lightweight")

	// Asked for by name downstream, it is refused too.
	ask := w.createIssue("alice", "acme/edge-1", "The new UPF")
	c := w.comment("alice", "acme/edge-1", ask, "/porch upgrade upf --to v2")
	w.settle()
	if reply := w.replyTo("acme/edge-1", ask, c).GetBody(); !strings.Contains(reply, "is not a revision porchbot published") {
		t.Fatalf("/porch upgrade to the hand-pushed tag:\n%s", reply)
	}
	if prs := w.updatePulls("acme/edge-1"); len(prs) != 0 {
		t.Fatalf("/porch upgrade to the hand-pushed tag opened %s", prs[0].GetTitle())
	}

	issue := w.createIssue("alice", upstreamRepo, "Publish the UPF")
	c = w.comment("alice", upstreamRepo, issue, "/porch publish "+upstreamPkg)
	w.settle()
	if rels := w.releases(upstreamRepo); contains(rels, upstreamPkg+"/v2") {
		t.Fatalf("alice adopted her own tag: %v\n%s", rels, w.replyTo(upstreamRepo, issue, c).GetBody())
	}
	if reply := w.replyTo(upstreamRepo, issue, c).GetBody(); !strings.Contains(reply, "they pushed it") {
		t.Fatalf("reply to alice's /porch publish:\n%s", reply)
	}

	c = w.comment("bob", upstreamRepo, issue, "/porch publish "+upstreamPkg)
	w.settle()
	reply := w.replyTo(upstreamRepo, issue, c).GetBody()
	if !strings.Contains(reply, "Adopted") || !strings.Contains(reply, upstreamPkg+"/v2") {
		t.Fatalf("reply to bob's /porch publish:\n%s", reply)
	}
	if tags := w.tags(upstreamRepo, upstreamPkg+"/"); tags[upstreamPkg+"/v2"] != tagged {
		t.Fatalf("adopted tag moved: %v, want v2 on %s", tags, tagged)
	}
	if rels := w.releases(upstreamRepo); !contains(rels, upstreamPkg+"/v2") {
		t.Fatalf("no release for the adopted revision: %v", rels)
	}
	for _, repo := range []string{"acme/edge-1", "acme/edge-2"} {
		w.checkUpdate(repo, upstreamPkg+"/v2", tagged)
	}
}

// TestForgedRevisionRecordIsRefused: alice copies the signed record of
// network/upf/v1 into an annotated tag network/upf/v2 of her own commit,
// then alters it to name v2 and her commit. Neither is a revision.
func TestForgedRevisionRecordIsRefused(t *testing.T) {
	t.Parallel()
	w, shas := updateWorld(t)
	owner, name := splitRepo(upstreamRepo)
	ref, _, err := w.client("alice").Git.GetRef(w.ctx, owner, name, "tags/"+upstreamPkg+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	v1, _, err := w.client("alice").Git.GetTag(w.ctx, owner, name, ref.GetObject().GetSHA())
	if err != nil || !strings.Contains(v1.GetMessage(), "porchbot-revision: ") {
		t.Fatalf("v1 is not porchbot's annotated tag: %v\n%s", err, v1.GetMessage())
	}
	tagged := w.handTag("alice", v1.GetMessage())
	w.wantNotARevision(tagged, "another revision")

	// The same record edited to name v2 and alice's commit.
	dir := w.clone("alice", upstreamRepo)
	w.git(dir, "push", "-q", "origin", ":refs/tags/"+upstreamPkg+"/v2")
	altered := strings.Replace(strings.Replace(v1.GetMessage(), shas["v1"], tagged, 1), `"revision":1`, `"revision":2`, 1)
	msg := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(msg, []byte(altered), 0o600); err != nil {
		t.Fatal(err)
	}
	w.git(dir, "tag", "-f", "-a", "-F", msg, upstreamPkg+"/v2", tagged)
	w.git(dir, "push", "-q", "origin", "refs/tags/"+upstreamPkg+"/v2")
	w.settle()
	w.wantNotARevision(tagged, "signature does not verify")
	if revs := w.revisions(upstreamRepo, upstreamPkg); len(revs) != 2 || packages.Latest(revs) != 2 {
		t.Fatalf("revisions %v", revs)
	}
}

// TestHandPushedTagIsNoVariantSource: with a variant of network/upf (at
// v2) proposed to acme/edge-1, alice tags a direct push network/upf/v3 by
// hand. The variant keeps tracking v2: /porch variants says so and the
// resync does not move edge-1's proposal to the hand-pushed tag.
func TestHandPushedTagIsNoVariantSource(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	w.pushConfig(variantsConfig([]string{"acme/edge-1"}, ""))
	before := w.checkVariantClone("acme/edge-1")
	w.handTagN("alice", 3, "")
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	prs := w.openPullsFrom("acme/edge-1", variantDraft)
	if len(prs) != 1 || prs[0].GetNumber() != before.GetNumber() || strings.Contains(prs[0].GetBody(), upstreamPkg+"/v3") {
		t.Fatalf("edge-1's variant proposal after a hand-pushed v3: %d open\n%s", len(prs), prs[0].GetBody())
	}
	w.checkVariantClone("acme/edge-1") // still network/upf/v2, locked to its commit
	if row := w.tableRow(w.variantsTable(), "acme/edge-1"); strings.Contains(row, upstreamPkg+"/v3") {
		t.Fatalf("/porch variants tracks the hand-pushed tag: %s", row)
	}
}

// TestUnsignedRevisionsAreAdoptedAtOnce: a repository from before signed
// revisions has lightweight tags basens/v1 and basens/v2 on landings of
// main. They are no revisions until bob, an approver, runs /porch publish
// basens once: both become porchbot's signed tags on the same commits and
// the reply lists them.
func TestUnsignedRevisionsAreAdoptedAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	owner, name := splitRepo(repo)
	lightweight := func(tag, sha string) {
		t.Helper()
		if _, _, err := w.client("alice").Git.CreateRef(w.ctx, owner, name, &github.Reference{
			Ref: github.String("refs/tags/" + tag), Object: &github.GitObject{SHA: github.String(sha)}}); err != nil {
			t.Fatal(err)
		}
	}
	v1 := w.branchSHA(repo, "main")
	lightweight("basens/v1", v1)
	v2 := w.pushStraightToMain(repo)
	w.settle()
	lightweight("basens/v2", v2)
	w.settle()
	if rels := w.releases(repo); len(rels) != 0 {
		t.Fatalf("releases of unsigned tags: %v", rels)
	}

	issue := w.createIssue("bob", repo, "Adopt the old revisions")
	c := w.comment("bob", repo, issue, "/porch publish basens")
	w.settle()
	reply := w.replyTo(repo, issue, c).GetBody()
	if !strings.Contains(reply, "Adopted") || !strings.Contains(reply, "basens/v1, basens/v2") {
		t.Fatalf("reply:\n%s", reply)
	}
	if tags := w.tags(repo, "basens/"); len(tags) != 2 || tags["basens/v1"] != v1 || tags["basens/v2"] != v2 {
		t.Fatalf("tags after the adoption: %v", tags)
	}
	for _, tag := range []string{"basens/v1", "basens/v2"} {
		ref, _, err := w.client("alice").Git.GetRef(w.ctx, owner, name, "tags/"+tag)
		if err != nil || ref.GetObject().GetType() != "tag" {
			t.Fatalf("%s after the adoption: %+v %v", tag, ref.GetObject(), err)
		}
	}
	if rels := w.releases(repo); !contains(rels, "basens/v2") {
		t.Fatalf("no release for the adopted basens/v2: %v", rels)
	}
}
