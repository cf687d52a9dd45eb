package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// Attacks on publishing (issue #8 §1): a landing is tagged only if its
// package equals the package at a head that met the approval policy.

// tagsOn lists the tags of repo pointing at commit.
func (w *world) tagsOn(repo, commit string) []string {
	w.t.Helper()
	var out []string
	for tag, sha := range w.tags(repo, "") {
		if sha == commit {
			out = append(out, tag)
		}
	}
	return out
}

// wantRefused checks that landing commit of pull request n published
// nothing, has a failed porchbot/publish check run and a bot comment saying
// why.
func (w *world) wantRefused(repo string, n int, commit, why string) {
	w.t.Helper()
	if tags := w.tagsOn(repo, commit); len(tags) != 0 {
		w.t.Fatalf("landing %s was published: %v", commit, tags)
	}
	run := w.checkRunMaybe(repo, commit, "porchbot/publish")
	if run == nil || run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetSummary(), why) {
		w.t.Fatalf("porchbot/publish on %s: %+v", commit, run)
	}
	for _, c := range w.botComments(repo, n) {
		if strings.Contains(c.GetBody(), "Not published") && strings.Contains(c.GetBody(), why) {
			return
		}
	}
	w.t.Fatalf("no comment on #%d saying the landing was not published because %q", n, why)
}

// adminMergeUnreviewed: alice pushes branch with old replaced by new in
// file of acme/catalog, opens its pull request and merges it at once (an
// admin's merge: no review); it returns the pull request and the merge.
func (w *world) adminMergeUnreviewed(branch, file, old, new string) (*github.PullRequest, string) {
	w.t.Helper()
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	w.write(dir, file, strings.Replace(readFile(w.t, dir, file), old, new, 1))
	w.git(dir, "commit", "-q", "-am", "Change "+file)
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, branch, "Change "+file)
	w.settle()
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	return pr, merged
}

// TestAdminMergeWithoutApprovalIsNotPublished: alice merges her own
// proposal through the API with no approval at all.
func TestAdminMergeWithoutApprovalIsNotPublished(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, merged := w.adminMergeUnreviewed("drafts/network/upf/unreviewed", "network/upf/deployment.yaml", "replicas: 1", "replicas: 9")
	w.wantRefused(repo, pr.GetNumber(), merged, "did not meet the approval policy")
	if w.pullFrom(repo, "drafts/network/upf/merged-"+merged[:7]) == nil && w.branchSHA(repo, "drafts/network/upf/merged-"+merged[:7]) == "" {
		t.Fatal("no draft holding the merged state")
	}
}

// TestForcePushAfterApprovalIsNotPublished: bob approves, alice
// force-pushes other content and merges.
func TestForcePushAfterApprovalIsNotPublished(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	const branch = "drafts/network/upf/swap"
	dir, pr, _ := w.proposeUPF(branch)
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 3", "replicas: 30", 1))
	w.git(dir, "commit", "-q", "-a", "--amend", "-m", "Three UPF replicas")
	w.git(dir, "push", "-q", "-f", "origin", "HEAD")
	w.settle()
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	w.wantRefused(repo, pr.GetNumber(), merged, "stale")
}

// TestSmuggledPackageIsNotPublished: after bob approves a draft of
// network/upf, alice adds other/ and merges: neither is published.
func TestSmuggledPackageIsNotPublished(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir, pr, _ := w.proposeUPF("drafts/network/upf/smuggle")
	w.write(dir, "other/Kptfile", otherKptfile)
	w.pushAll(dir, pr.GetNumber(), "Add another package")
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	if tags := w.tags(repo, "other/"); len(tags) != 0 {
		t.Fatalf("the smuggled package was published: %v", tags)
	}
	w.wantRefused(repo, pr.GetNumber(), merged, "`other` was added")
}

// TestApprovedLandingNamesItsApprovers: the control. An approved proposal
// publishes on merge, and its release's "Approved by" is bob.
func TestApprovedLandingNamesItsApprovers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	_, pr, _ := w.proposeUPF("drafts/network/upf/approved")
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	tags := w.tagsOn(repo, merged)
	if len(tags) != 1 || !strings.HasPrefix(tags[0], "network/upf/v") {
		t.Fatalf("tags on the merge: %v", tags)
	}
	owner, name := splitRepo(repo)
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, owner, name, tags[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel.GetBody(), "### Approved by\n\n- @bob\n\n") {
		t.Fatalf("release notes:\n%s", rel.GetBody())
	}
}

// publishFound has bob (an approver) publish, with /porch publish, the
// state porchbot found packages in on main: with approvals required, it is
// not published on its own. Each becomes v1 on commit seed.
func (w *world) publishFound(repo, seed string, pkgs ...string) {
	w.t.Helper()
	issue := w.createIssue("bob", repo, "Publish what was there")
	for _, pkg := range pkgs {
		c := w.comment("bob", repo, issue, "/porch publish "+pkg)
		w.settle()
		if got := w.tags(repo, pkg+"/v"); len(got) != 1 || got[pkg+"/v1"] != seed {
			w.t.Fatalf("/porch publish %s: tags %v, want %s/v1 on %s; reply:\n%s", pkg, got, pkg, seed, w.replyTo(repo, issue, c).GetBody())
		}
	}
}

// TestFoundStateWaitsForAnApprover: the state porchbot found a package in,
// and a direct push to main, are not published on their own, not even by
// the resync; carol (read access) cannot publish them; bob, an approver,
// does with /porch publish, and the release names him.
func TestFoundStateWaitsForAnApprover(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	dir := w.clone("alice", repo)
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "55"`, 1))
	w.git(dir, "commit", "-q", "-am", "Fifty-five pods, straight to main")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	pushed := w.git(dir, "rev-parse", "HEAD")
	if tags := w.tags(repo, "basens/"); len(tags) != 0 {
		t.Fatalf("a direct push was published on its own: %v", tags)
	}
	// The resync, as the periodic loop runs it, does not publish it either.
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if tags := w.tags(repo, "basens/"); len(tags) != 0 {
		t.Fatalf("the resync published a direct push: %v", tags)
	}
	issue := w.createIssue("alice", repo, "Publish basens")
	c := w.comment("carol", repo, issue, "/porch publish basens")
	w.settle()
	if tags := w.tags(repo, "basens/"); len(tags) != 0 {
		t.Fatalf("carol (read access) published: %v; reply:\n%s", tags, w.replyTo(repo, issue, c).GetBody())
	}
	w.comment("bob", repo, issue, "/porch publish basens")
	w.settle()
	tags := w.tags(repo, "basens/")
	if len(tags) != 1 || tags["basens/v1"] != pushed {
		t.Fatalf("bob's /porch publish: %v, want basens/v1 on %s", tags, pushed)
	}
	owner, name := splitRepo(repo)
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, owner, name, "basens/v1")
	if err != nil || !strings.Contains(rel.GetBody(), "### Approved by\n\n- @bob\n") {
		t.Fatalf("release of basens/v1 (%v): %+v", err, rel)
	}
}

// TestPublishCommandOfOwnUnapprovedMerge: alice admin-merges her own
// unapproved proposal; her /porch publish does not count (self-approval),
// bob's does.
func TestPublishCommandOfOwnUnapprovedMerge(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, merged := w.adminMergeUnreviewed("drafts/basens/mine", "basens/namespace.yaml", `pods: "50"`, `pods: "65"`)
	w.wantRefused(repo, pr.GetNumber(), merged, "did not meet the approval policy")
	c := w.comment("alice", repo, pr.GetNumber(), "/porch publish")
	w.settle()
	if tags := w.tagsOn(repo, merged); len(tags) != 0 {
		t.Fatalf("alice's own /porch publish published %v", tags)
	}
	if reply := w.replyTo(repo, pr.GetNumber(), c).GetBody(); !strings.Contains(reply, "self-approval") && !strings.Contains(reply, "own approval") {
		t.Fatalf("reply to alice's /porch publish:\n%s", reply)
	}
	w.comment("bob", repo, pr.GetNumber(), "/porch publish")
	w.settle()
	if tags := w.tagsOn(repo, merged); len(tags) != 1 || tags[0] != "basens/v1" {
		t.Fatalf("bob's /porch publish: %v", tags)
	}
}

// TestResyncTrustsOnlySignedRecords: a /porch approve record in the bot's
// own comment but without the record key's signature (as an edit made in
// the second of its creation would leave it) counts neither in the webhook
// path nor in the resync: a feature-branch proposal merged while every
// webhook was lost is not published by the resync on its strength.
func TestResyncTrustsOnlySignedRecords(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, head := w.featureProposal(repo)
	w.settle()
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	asBot, err := w.svc.Clients.Installation(w.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	forged := w.commentWith(asBot, repo, pr.GetNumber(),
		"Approved by @bob.\n\n<!-- porchbot:approve {\"user\":\"bob\",\"head\":\""+head+"\"} -->\n")
	if !strings.HasSuffix(forged.GetUser().GetLogin(), "[bot]") {
		t.Fatalf("the record is not the bot's: %s", forged.GetUser().GetLogin())
	}
	w.settle()
	fg := w.svc.Embedded.Forge
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	fg.SetFaults(forge.Faults{})
	rep, err := w.resync(repo)
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	if tags := w.tagsOn(repo, merged); len(tags) != 0 {
		t.Fatalf("the resync published %v on an unsigned approval record", tags)
	}
	refused := false
	for _, r := range rep.Refused {
		refused = refused || r.PR == pr.GetNumber()
	}
	if !refused {
		t.Fatalf("the resync did not refuse #%d: %+v", pr.GetNumber(), rep.Refused)
	}
}
