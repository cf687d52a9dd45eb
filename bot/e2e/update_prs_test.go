package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/packages"
)

// updateWorld is acme/catalog's network/upf published as v1 and three
// downstream repositories tracking it as package upf: acme/edge-1 and
// acme/edge-2 by /porch clone (landed, approved by bob), acme/edge-3 by a
// Kptfile as kpt pkg get writes it, pushed to main. edge-2 scales the UPF
// (a local change the updates keep); edge-3 pins another image (a conflict
// with the upstream's v2).
func updateWorld(t *testing.T) (*world, map[string]string) {
	t.Helper()
	w := newWorld(t)
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	v1 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"]

	w.seedReadme("acme/edge-1")
	w.cloneDownstream("acme/edge-1", 1)
	w.newRepo("acme/edge-2")
	w.cloneDownstream("acme/edge-2", 1)
	dir := w.clone("alice", "acme/edge-2")
	w.replaceIn(dir, "upf/deployment.yaml", "replicas: 1", "replicas: 2")
	w.git(dir, "commit", "-q", "-am", "Two UPF replicas at this site")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()

	// edge-3: what `kpt pkg get <catalog>.git/network/upf@network/upf/v1 upf`
	// leaves, pushed straight to main, with its own image pin.
	w.newRepo("acme/edge-3")
	dir = w.clone("alice", "acme/edge-3")
	repoURL := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "catalog"), ".git")
	for _, f := range []string{"deployment.yaml", "service.yaml"} {
		body, _ := w.file(upstreamRepo, upstreamPkg+"/v1", upstreamPkg+"/"+f)
		w.write(dir, "upf/"+f, body)
	}
	w.write(dir, "upf/Kptfile", `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
  annotations:
    config.kubernetes.io/local-config: "true"
upstream:
  type: git
  git:
    repo: `+repoURL+`
    directory: /network/upf
    ref: network/upf/v1
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: `+repoURL+`
    directory: /network/upf
    ref: network/upf/v1
    commit: `+v1+`
info:
  description: User plane function for edge sites
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/name: upf
        app.kubernetes.io/part-of: network
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: upf
`)
	w.replaceIn(dir, "upf/deployment.yaml", "upf:1.4.2", "upf:1.4.3")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "kpt pkg get the UPF, pinned to 1.4.3")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()

	return w, map[string]string{"v1": v1}
}

var downstreamRepos = []string{"acme/edge-1", "acme/edge-2", "acme/edge-3"}

// upstreamV2 bumps the image and adds a ConfigMap.
func upstreamV2(w *world) func(string) {
	return func(dir string) {
		w.replaceIn(dir, upstreamPkg+"/deployment.yaml", "upf:1.4.2", "upf:1.5.0")
		w.write(dir, upstreamPkg+"/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-config\ndata:\n  logLevel: info\n")
	}
}

// upstreamV3 moves the PFCP port.
func upstreamV3(w *world) func(string) {
	return func(dir string) {
		w.replaceIn(dir, upstreamPkg+"/service.yaml", "port: 8805", "port: 8806")
	}
}

// checkUpdate checks the update branch of repo proposes tag: one porchbot
// commit with the upgrade trailer on main's head, the Kptfile locked to the
// tag's commit, and the pull request's body and labels.
func (w *world) checkUpdate(repo, tag, tagSHA string, body ...string) *github.PullRequest {
	w.t.Helper()
	prs := w.updatePulls(repo)
	var open *github.PullRequest
	for _, pr := range prs {
		if pr.GetState() == "open" {
			if open != nil {
				w.t.Fatalf("%s: two open update pull requests", repo)
			}
			open = pr
		}
	}
	if open == nil {
		w.t.Fatalf("%s: no open update pull request (of %d)", repo, len(prs))
	}
	head := w.branchSHA(repo, updateBranch)
	owner, name := splitRepo(repo)
	c, _, err := w.client("alice").Git.GetCommit(w.ctx, owner, name, head)
	if err != nil {
		w.t.Fatal(err)
	}
	if len(c.Parents) != 1 || c.Parents[0].GetSHA() != w.branchSHA(repo, "main") {
		w.t.Fatalf("%s: the update commit is not on main's head: %v", repo, c.Parents)
	}
	if c.GetAuthor().GetName() != botLogin || !strings.HasPrefix(c.GetMessage(), "Update upf to "+tag) {
		w.t.Fatalf("%s: update commit by %s: %q", repo, c.GetAuthor().GetName(), c.GetMessage())
	}
	if tr := w.trailer(repo, head); tr.Package != "upf" || tr.Task == nil || tr.Task.Type != packages.TaskUpgrade {
		w.t.Fatalf("%s: trailer %+v", repo, tr)
	}
	k := w.kptfileAt(repo, head, "upf")
	if k.UpstreamLock == nil || k.UpstreamLock.Git == nil || k.UpstreamLock.Git.Ref != tag || k.UpstreamLock.Git.Commit != tagSHA ||
		k.Upstream == nil || k.Upstream.Git == nil || k.Upstream.Git.Ref != tag {
		w.t.Fatalf("%s: Kptfile upstream %+v lock %+v, want %s at %s", repo, k.Upstream, k.UpstreamLock, tag, tagSHA)
	}
	for _, want := range append([]string{tag, "/porch upgrade upf"}, body...) {
		if !strings.Contains(open.GetBody(), want) {
			w.t.Fatalf("%s#%d body lacks %q:\n%s", repo, open.GetNumber(), want, open.GetBody())
		}
	}
	labels := w.labels(repo, open.GetNumber())
	if !contains(labels, packages.LabelProposed) || !contains(labels, packages.LabelUpdate) {
		w.t.Fatalf("%s#%d labels %v", repo, open.GetNumber(), labels)
	}
	return open
}

// TestUpdatePullRequests is SPEC §6 end to end: a publish upstream opens
// one update pull request per downstream package (two cloned, one kpt pkg
// get), with the merge, the render, the lock and a body naming the range,
// the release notes, the resources and the conflicts; the next revision
// refreshes them; a branch someone else pushed to is left alone with one
// comment; a pull request closed unmerged is not reopened for its
// revision; merging an update publishes the downstream's next revision.
func TestUpdatePullRequests(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)

	// v2 upstream: one pull request in each downstream repository.
	v2 := w.publishUpstream("v2", upstreamV2(w))
	v2sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v2]
	prs := map[string]*github.PullRequest{}
	for _, r := range downstreamRepos {
		prs[r] = w.checkUpdate(r, v2, v2sha, upstreamPkg+"/v1", "Revision 2 of package `network/upf`",
			"v1/ConfigMap upf/upf-config", "apps/v1/Deployment upf/upf")
		head := w.branchSHA(r, updateBranch)
		dep, _ := w.file(r, head, "upf/deployment.yaml")
		if !strings.Contains(dep, "upf:1.5.0") {
			t.Errorf("%s: the update does not take the upstream image:\n%s", r, dep)
		}
		cm, ok := w.file(r, head, "upf/configmap.yaml")
		if !ok || !strings.Contains(cm, "namespace: upf") {
			t.Errorf("%s: the added ConfigMap is missing or not rendered:\n%s", r, cm)
		}
		if run := w.checkRunMaybe(r, head, "porchbot/render"); run == nil || run.GetConclusion() != "success" {
			t.Errorf("%s: render check on the update: %+v", r, run)
		}
	}
	if dep, _ := w.file("acme/edge-2", w.branchSHA("acme/edge-2", updateBranch), "upf/deployment.yaml"); !strings.Contains(dep, "replicas: 2") {
		t.Errorf("edge-2's local replicas were lost:\n%s", dep)
	}
	// edge-3 pinned 1.4.3 where upstream moved to 1.5.0: listed.
	if b := prs["acme/edge-3"].GetBody(); !strings.Contains(b, "1.4.3") || !strings.Contains(b, "image") {
		t.Errorf("edge-3's conflict is not listed:\n%s", b)
	}
	if b := prs["acme/edge-1"].GetBody(); !strings.Contains(b, "None: no field") {
		t.Errorf("edge-1 lists conflicts it does not have:\n%s", b)
	}
	if got := testutil.ToFloat64(w.svc.Metrics.UpdatePRs.WithLabelValues(updates.Opened)); got != 3 {
		t.Errorf("porchbot_update_prs{state=opened} = %v, want 3", got)
	}
	if got := testutil.ToFloat64(w.svc.Metrics.UpdateQueueDepth); got != 0 {
		t.Errorf("porchbot_update_queue_depth = %v after the fan-out", got)
	}

	// bob pushes to edge-2's update branch; alice closes edge-3's update
	// unmerged; /porch upgrade there does not bring v2 back.
	dir := w.clone("bob", "acme/edge-2")
	w.git(dir, "switch", "-q", updateBranch)
	w.replaceIn(dir, "upf/deployment.yaml", "replicas: 2", "replicas: 4")
	w.git(dir, "commit", "-q", "-am", "Four replicas with the new image")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	bobHead := w.git(dir, "rev-parse", "HEAD")
	owner, name := splitRepo("acme/edge-3")
	if _, _, err := w.client("alice").PullRequests.Edit(w.ctx, owner, name, prs["acme/edge-3"].GetNumber(),
		&github.PullRequest{State: github.String("closed")}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	c := w.comment("alice", "acme/edge-3", prs["acme/edge-3"].GetNumber(), "/porch upgrade upf --to v2")
	w.settle()
	if reply := w.replyTo("acme/edge-3", prs["acme/edge-3"].GetNumber(), c).GetBody(); !strings.Contains(reply, "closed unmerged") {
		t.Errorf("upgrade to a declined revision: %s", reply)
	}
	if got := w.updatePulls("acme/edge-3"); len(got) != 1 || got[0].GetState() != "closed" {
		t.Fatalf("edge-3: a declined update came back: %d pull requests", len(got))
	}

	// v3 upstream refreshes edge-1's pull request (same number, v1 → v3,
	// both revisions' notes); leaves bob's branch with one comment; opens
	// a new pull request in edge-3 (a newer revision than the declined one).
	v3 := w.publishUpstream("v3", upstreamV3(w))
	v3sha := w.tags(upstreamRepo, upstreamPkg+"/v")[v3]
	p1 := w.checkUpdate("acme/edge-1", v3, v3sha, upstreamPkg+"/v1", "Revision 2 of package `network/upf`", "Revision 3 of package `network/upf`")
	if p1.GetNumber() != prs["acme/edge-1"].GetNumber() || len(w.updatePulls("acme/edge-1")) != 1 {
		t.Fatalf("edge-1: v3 opened #%d instead of refreshing #%d", p1.GetNumber(), prs["acme/edge-1"].GetNumber())
	}
	if svc, _ := w.file("acme/edge-1", w.branchSHA("acme/edge-1", updateBranch), "upf/service.yaml"); !strings.Contains(svc, "port: 8806") {
		t.Errorf("edge-1's refresh lacks v3:\n%s", svc)
	}
	if got := w.branchSHA("acme/edge-2", updateBranch); got != bobHead {
		t.Fatalf("bob's push to edge-2's update branch was overwritten: %s, want %s", got, bobHead)
	}
	held := "porchbot:update-held " + v3
	if cs := w.botCommentsWith("acme/edge-2", prs["acme/edge-2"].GetNumber(), held); len(cs) != 1 || !strings.Contains(cs[0].GetBody(), "Service upf/upf-pfcp") {
		t.Fatalf("edge-2: %d held comments for %s: %v", len(cs), v3, cs)
	}
	c = w.comment("alice", "acme/edge-2", prs["acme/edge-2"].GetNumber(), "/porch upgrade upf")
	w.settle()
	if reply := w.replyTo("acme/edge-2", prs["acme/edge-2"].GetNumber(), c).GetBody(); !strings.Contains(reply, "did not make") {
		t.Errorf("upgrade of a held branch: %s", reply)
	}
	if cs := w.botCommentsWith("acme/edge-2", prs["acme/edge-2"].GetNumber(), held); len(cs) != 1 {
		t.Fatalf("edge-2: %d held comments for %s after /porch upgrade", len(cs), v3)
	}
	if got := w.updatePulls("acme/edge-3"); len(got) != 2 {
		t.Fatalf("edge-3: %d update pull requests after v3, want the declined one and a new one", len(got))
	}
	w.checkUpdate("acme/edge-3", v3, v3sha)

	// Merging edge-1's update, approved by bob, publishes upf/v2 there.
	head := w.branchSHA("acme/edge-1", updateBranch)
	w.approve("bob", "acme/edge-1", p1.GetNumber())
	w.settle()
	if run := w.checkRun("acme/edge-1", head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval of the update: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	merged := w.merge("alice", "acme/edge-1", p1.GetNumber())
	w.settle()
	if tags := w.tags("acme/edge-1", "upf/v"); tags["upf/v2"] != merged {
		t.Fatalf("merging the update did not publish upf/v2 on %s: %v", merged, tags)
	}
	if k := w.kptfileAt("acme/edge-1", "upf/v2", "upf"); k.UpstreamLock.Git.Ref != v3 {
		t.Fatalf("upf/v2 locks %s", k.UpstreamLock.Git.Ref)
	}
}

// TestUpdateBranchLookalikeIsNotOverwritten: alice pushes to edge-1's
// update branch a commit dressed as porchbot's (its name, its upgrade
// trailer). It is not porchbot's one commit on main: v3 leaves the branch
// as she pushed it and comments instead.
func TestUpdateBranchLookalikeIsNotOverwritten(t *testing.T) {
	t.Parallel()
	w, _ := updateWorld(t)
	w.publishUpstream("v2", upstreamV2(w))
	pr := w.updatePulls("acme/edge-1")
	if len(pr) != 1 {
		t.Fatalf("%d update pull requests", len(pr))
	}
	dir := w.clone("alice", "acme/edge-1")
	w.git(dir, "switch", "-q", updateBranch)
	w.replaceIn(dir, "upf/deployment.yaml", "replicas: 1", "replicas: 9")
	w.git(dir, "-c", "user.name="+botLogin, "-c", "user.email="+botLogin+"@users.noreply.github.com", "commit", "-q", "-am",
		"Update upf to network/upf/v2\n\n"+packages.Trailer{Package: "upf", Revision: "0", Task: &packages.Task{Type: packages.TaskUpgrade}}.String())
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pushed := w.git(dir, "rev-parse", "HEAD")

	v3 := w.publishUpstream("v3", upstreamV3(w))
	if got := w.branchSHA("acme/edge-1", updateBranch); got != pushed {
		t.Fatalf("alice's look-alike commit %s was overwritten by %s", pushed, got)
	}
	if cs := w.botCommentsWith("acme/edge-1", pr[0].GetNumber(), "porchbot:update-held "+v3); len(cs) != 1 {
		t.Fatalf("%d held comments", len(cs))
	}
}
