package e2e

import (
	"strings"
	"testing"
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

// TestAdminMergeWithoutApprovalIsNotPublished: alice merges her own
// proposal through the API with no approval at all.
func TestAdminMergeWithoutApprovalIsNotPublished(t *testing.T) {
	w := newWorld(t)
	const repo = "acme/catalog"
	const branch = "drafts/network/upf/unreviewed"
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 9", 1))
	w.git(dir, "commit", "-q", "-am", "Nine UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, branch, "Scale the UPF")
	w.settle()
	merged := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	w.wantRefused(repo, pr.GetNumber(), merged, "did not meet the approval policy")
	if w.pullFrom(repo, "drafts/network/upf/merged-"+merged[:7]) == nil && w.branchSHA(repo, "drafts/network/upf/merged-"+merged[:7]) == "" {
		t.Fatal("no draft holding the merged state")
	}
}

// TestForcePushAfterApprovalIsNotPublished: bob approves, alice
// force-pushes other content and merges.
func TestForcePushAfterApprovalIsNotPublished(t *testing.T) {
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
