package e2e

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rebase"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// TestRebaseDraftsOnPublish: four drafts of basens fork from v1. w1
// merges and publishes v2; w2 (its own change elsewhere in the package)
// gets porchbot's merge commit "Rebase basens on basens/v2" on the
// published commit, its proposal's diff shows only its own change, and
// the rebased head is rendered; w3 changed the same field as w1: one
// comment on its proposal lists the conflict, nothing is pushed, and a
// second rebase does not comment again; w4 already has v2's change and is
// not touched. A draft a human pushes to after porchbot read it is not
// overwritten (the lease), and the next rebase takes it: no REST call of
// its own.
func TestRebaseDraftsOnPublish(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	alice := w.client("alice")
	seed := w.branchSHA(repo, "main")
	w.publishFound(repo, seed, "basens")

	draft := func(ws, from, old, new string) string {
		dir := w.clone("alice", repo)
		branch := packages.DraftBranch("basens", ws)
		w.git(dir, "switch", "-q", "-c", branch, from)
		w.replaceIn(dir, "basens/namespace.yaml", old, new)
		w.git(dir, "commit", "-q", "-am", "basens: "+new)
		w.git(dir, "push", "-q", "origin", "HEAD")
		return branch
	}
	w1 := draft("w1", seed, `pods: "50"`, `pods: "60"`)
	w2 := draft("w2", seed, `requests.cpu: "8"`, `requests.cpu: "16"`)
	w3 := draft("w3", seed, `pods: "50"`, `pods: "70"`)
	w4 := draft("w4", seed, `pods: "50"`, `pods: "60"`)
	w.settle()
	pr2 := w.openPull("alice", repo, w2, "Sixteen CPUs")
	pr3 := w.openPull("alice", repo, w3, "Seventy pods")
	w.settle()
	w.approve("bob", repo, pr2.GetNumber())
	w.settle()
	head2, head3, head4 := w.branchSHA(repo, w2), w.branchSHA(repo, w3), w.branchSHA(repo, w4)

	w.landDraft(repo, w1, "Sixty pods")
	v2 := w.tags(repo, "basens/v")["basens/v2"]
	if v2 == "" {
		t.Fatalf("w1 did not publish basens/v2: %v", w.tags(repo, "basens/v"))
	}

	// w2: one merge commit of its head and the published commit.
	final2 := w.branchSHA(repo, w2)
	rebased := rebaseCommitUnder(w, repo, final2)
	c, _, err := alice.Git.GetCommit(w.ctx, "acme", "catalog", rebased)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.GetMessage(), "Rebase basens on basens/v2\n") || len(c.Parents) != 2 ||
		c.Parents[0].GetSHA() != head2 || c.Parents[1].GetSHA() != v2 {
		t.Fatalf("w2's rebase commit %q, parents %v; want its head %s and basens/v2 %s", c.GetMessage(), c.Parents, head2, v2)
	}
	if tr := w.trailer(repo, rebased); tr.Package != "basens" || tr.WorkspaceName != "w2" || tr.Task == nil || tr.Task.Type != packages.TaskUpgrade {
		t.Fatalf("trailer %+v", tr)
	}
	ns, _ := w.file(repo, final2, "basens/namespace.yaml")
	if !strings.Contains(ns, `pods: "60"`) || !strings.Contains(ns, `requests.cpu: "16"`) || strings.Contains(ns, "kpt-merge") ||
		strings.Contains(ns, "upstream-identifier") {
		t.Fatalf("w2's package after the rebase:\n%s", ns)
	}
	files, _, err := alice.PullRequests.ListFiles(w.ctx, "acme", "catalog", pr2.GetNumber(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].GetFilename() != "basens/namespace.yaml" || changedLines(files[0].GetPatch()) != `-    requests.cpu: "8"|+    requests.cpu: "16"` {
		for _, f := range files {
			t.Logf("%s:\n%s", f.GetFilename(), f.GetPatch())
		}
		t.Fatalf("w2's proposal shows more than its own change")
	}
	if run := w.checkRun(repo, final2, "porchbot/render"); run.GetConclusion() != "success" {
		t.Fatalf("render of the rebased w2: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	// The rebase changed what bob approved (it has v2's pods now): his
	// approval no longer counts, as for any change of content.
	if run := w.checkRun(repo, final2, "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatalf("the approval of w2 survived a change of its content: %s", run.GetOutput().GetSummary())
	}

	// w3: conflicts, commented once, nothing pushed.
	if got := w.branchSHA(repo, w3); got != head3 {
		t.Fatalf("the conflicting w3 moved: %s, was %s", got, head3)
	}
	marker := `<!-- porchbot:rebase-conflicts {"tag":"basens/v2"} -->`
	cs := w.botCommentsWith(repo, pr3.GetNumber(), marker)
	if len(cs) != 1 || !strings.Contains(cs[0].GetBody(), "`spec.hard.pods` | `70` | `60` |") {
		t.Fatalf("conflict comments on w3's proposal: %d %v", len(cs), cs)
	}
	// w4 had v2's change already: untouched.
	if got := w.branchSHA(repo, w4); got != head4 {
		t.Fatalf("w4, already current, moved: %s, was %s", got, head4)
	}

	// A human pushes to w5 between porchbot's read (in a cache of its own,
	// as another replica's) and its push.
	rev := []rebase.Revision{{Package: "basens", Tag: "basens/v2", Commit: plumbing.NewHash(v2)}}
	w5 := draft("w5", seed, `requests.memory: 16Gi`, `requests.memory: 32Gi`)
	w.settle()
	stale := w.sessionOwnCache(repo)
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", w5)
	w.replaceIn(dir, "basens/namespace.yaml", `requests.memory: 32Gi`, `requests.memory: 24Gi`)
	w.git(dir, "commit", "-q", "-am", "basens: 24Gi after all")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	human := w.branchSHA(repo, w5)
	out := w.rebase(stale, rev)
	if st := draftState(out, w5); st != rebase.Moved || w.branchSHA(repo, w5) != human {
		t.Logf("outcome: %+v", out.Drafts)
		t.Fatalf("w5 after a rebase from a stale read: %s, head %s (human's %s)", st, w.branchSHA(repo, w5), human)
	}

	// The next rebase takes it, and w3's conflict is not commented again.
	// w5 is proposed first, so that the calls its rebase causes are a
	// proposal's.
	w.openPull("alice", repo, w5, "More memory")
	w.settle()
	before := w.stats()
	out = w.rebase(w.session(repo), rev)
	calls := diffCalls(before, w.stats())
	if st := draftState(out, w5); st != rebase.Rebased || out.Count(rebase.Rebased) != 1 {
		t.Fatalf("the second rebase: w5 %s, %+v", st, out.Drafts)
	}
	// The rebase itself is git's (a fetch, a push); the only REST calls
	// are w3's conflict looked at again (its proposal found, its comments
	// read: 304s when nothing changed), and nothing is written.
	for route := range calls {
		if route != "" && !strings.HasPrefix(route, "GIT ") && route != "GET /repos/{owner}/{repo}/pulls" &&
			route != "GET /repos/{owner}/{repo}/issues/{number}/comments" {
			t.Errorf("the second rebase called %s: %v", route, calls)
		}
	}
	t.Logf("REST calls of the second rebase (w5 rebased, w3's conflict seen again): %d %v", calls[""], calls)
	before = w.stats()
	w.settle()
	after := diffCalls(before, w.stats())
	t.Logf("REST calls its push caused (the render, the proposal's approval): %d %v", after[""], after)
	if got := rebaseCommitUnder(w, repo, w.branchSHA(repo, w5)); w.commitParents(repo, got)[0] != human {
		t.Fatalf("w5 rebased on %v, want the human's head %s first", w.commitParents(repo, got), human)
	}
	if cs := w.botCommentsWith(repo, pr3.GetNumber(), marker); len(cs) != 1 {
		t.Fatalf("%d conflict comments after a second rebase", len(cs))
	}
}

// rebaseCommitUnder is head, or its parent when head is the Render commit
// of the rebased draft.
func rebaseCommitUnder(w *world, repo, head string) string {
	w.t.Helper()
	if strings.HasPrefix(w.commitMessage(repo, head), "Render ") {
		return w.commitParents(repo, head)[0]
	}
	return head
}

func (w *world) commitParents(repo, sha string) []string {
	w.t.Helper()
	owner, name := splitRepo(repo)
	c, _, err := w.client("alice").Git.GetCommit(w.ctx, owner, name, sha)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, p := range c.Parents {
		out = append(out, p.GetSHA())
	}
	return out
}

// session opens a session on repo as an event would.
func (w *world) session(repo string) *core.Session {
	w.t.Helper()
	return w.sessionWith(w.svc.App.Opener, repo)
}

// sessionOwnCache opens a session on repo as another replica would, over
// a git cache of its own: what it read stays as it read it.
func (w *world) sessionOwnCache(repo string) *core.Session {
	w.t.Helper()
	orig := w.svc.App.Opener
	store, err := gitstore.New(gitstore.Options{Dir: w.t.TempDir(), Logger: orig.Logger, Auth: gitstore.InstallationAuth(w.svc.Clients)})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(store.Close)
	return w.sessionWith(&core.Opener{Clients: orig.Clients, Git: store, GitURL: orig.GitURL, Configs: &config.Cache{},
		Limits: orig.Limits, Logger: orig.Logger, RecordKey: orig.RecordKey}, repo)
}

// sessionWith opens a session on repo with op.
func (w *world) sessionWith(op *core.Opener, repo string) *core.Session {
	w.t.Helper()
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		w.t.Fatal(err)
	}
	owner, name := splitRepo(repo)
	s, err := op.Open(w.ctx, core.Repo{Owner: owner, Name: name, InstallationID: id, DefaultBranch: "main"})
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// rebase runs the rebase of a publish of revs in s, as the App does.
func (w *world) rebase(s *core.Session, revs []rebase.Revision) *rebase.Outcome {
	w.t.Helper()
	api := rebase.API{Proposal: approval.NewProposalAPI(s.Hub), Identity: w.svc.App.Render.Identity}
	out, err := rebase.Drafts(w.ctx, s, api, revs, rebase.Options{})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

func draftState(out *rebase.Outcome, branch string) string {
	for _, d := range out.Drafts {
		if d.Branch == branch {
			return d.State
		}
	}
	return "absent"
}

// changedLines are a patch's added and removed lines, joined with "|".
func changedLines(patch string) string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "|")
}

// diffCalls are the calls counted between two w.stats(), per route, with
// the sum of the REST calls (git's routes aside) under "".
func diffCalls(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for route, n := range after {
		if d := n - before[route]; d > 0 {
			out[route] = d
			if !strings.HasPrefix(route, "GIT ") {
				out[""] += d
			}
		}
	}
	return out
}
