package e2e

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/packages"
)

// TestCommands drives the package lifecycle with /porch comments only:
// init, propose, approve and merge of a new package; help, refusals and the
// bot's own comments; list; reject; delete; edit of a published revision;
// and clone into another repository with the upstream pinned.
func TestCommands(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const catalog = "acme/catalog"
	issue := w.createIssue("alice", catalog, "Package requests")

	// 1. /porch init: a draft with kpt pkg init's files and Porch's trailer,
	// 👀 on the comment and a reply linking the branch.
	c := w.comment("alice", catalog, issue, `/porch init network/smf --description "Session management"`)
	w.settle()
	reply := w.replyTo(catalog, issue, c)
	const smfDraft = "drafts/network/smf/v1"
	if !strings.Contains(reply.GetBody(), smfDraft) || !strings.Contains(reply.GetBody(), "](http") || !strings.Contains(reply.GetBody(), "✅") {
		t.Fatalf("init reply:\n%s", reply.GetBody())
	}
	reactions, _, err := w.client("alice").Reactions.ListIssueCommentReactions(w.ctx, "acme", "catalog", c.GetID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reactions) != 1 || reactions[0].GetContent() != "eyes" || reactions[0].GetUser().GetLogin() != botLogin {
		t.Fatalf("reactions on the command: %v", reactions)
	}
	head := w.branchSHA(catalog, smfDraft)
	if head == "" {
		t.Fatalf("no branch %s", smfDraft)
	}
	initCommit := w.firstDraftCommit(catalog, smfDraft)
	tr := w.trailer(catalog, initCommit)
	if tr.Package != "network/smf" || tr.WorkspaceName != "v1" || tr.Task == nil || tr.Task.Type != packages.TaskInit {
		t.Fatalf("init trailer: %+v", tr)
	}
	want := kptPkgInit(t, "smf", "Session management")
	for name, content := range want {
		got, ok := w.file(catalog, initCommit, "network/smf/"+name)
		if !ok || got != content {
			t.Errorf("network/smf/%s differs from kpt pkg init's:\n%s\nwant:\n%s", name, got, content)
		}
	}
	if run := w.checkRun(catalog, head, "porchbot/render"); run.GetConclusion() != "success" {
		t.Fatalf("render check of the new draft: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	// 2. /porch propose: a pull request labelled porch/proposed.
	c = w.comment("alice", catalog, issue, "/porch propose network/smf/v1")
	w.settle()
	pr := w.pullFrom(catalog, smfDraft)
	if pr == nil || pr.GetState() != "open" {
		t.Fatalf("no open proposal of %s", smfDraft)
	}
	if reply := w.replyTo(catalog, issue, c); !strings.Contains(reply.GetBody(), "#"+strconv.Itoa(pr.GetNumber())) {
		t.Fatalf("propose reply does not link #%d:\n%s", pr.GetNumber(), reply.GetBody())
	}
	if !contains(w.labels(catalog, pr.GetNumber()), packages.LabelProposed) {
		t.Fatalf("proposal labels: %v", w.labels(catalog, pr.GetNumber()))
	}
	if run := w.checkRun(catalog, pr.GetHead().GetSHA(), "porchbot/approval"); run.GetConclusion() == "success" {
		t.Fatal("approval check passed before any approval")
	}

	// 3. bob (of @acme/platform) approves with a command.
	c = w.comment("bob", catalog, pr.GetNumber(), "/porch approve")
	w.settle()
	if run := w.checkRun(catalog, pr.GetHead().GetSHA(), "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval check after /porch approve by bob: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	if reply := w.replyTo(catalog, pr.GetNumber(), c); !strings.Contains(reply.GetBody(), "Approval recorded") {
		t.Fatalf("approve reply:\n%s", reply.GetBody())
	}

	// 4. alice merges: network/smf/v1 and its release.
	merged := w.merge("alice", catalog, pr.GetNumber())
	w.settle()
	if got := w.tags(catalog, "network/smf/"); len(got) != 1 || got["network/smf/v1"] != merged {
		t.Fatalf("smf tags %v, want v1 on %s", got, merged)
	}
	if rels := w.releases(catalog); !contains(rels, "network/smf/v1") {
		t.Fatalf("no release of network/smf/v1: %v", rels)
	}
	// The proposal porchbot opened for alice credits her (#26 §4).
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, "acme", "catalog", "network/smf/v1")
	if err != nil {
		t.Fatal(err)
	}
	if body := rel.GetBody(); !strings.Contains(body, "by @alice") || strings.Contains(body, "by @"+botLogin) {
		t.Fatalf("release notes of a proposal porchbot opened for alice:\n%s", body)
	}

	// 5. A typo: "did you mean" and the command table.
	c = w.comment("alice", catalog, issue, "/porch hepl")
	w.settle()
	body := w.replyTo(catalog, issue, c).GetBody()
	if !strings.Contains(body, "Did you mean `/porch help`") || !strings.Contains(body, "| command | effect |") ||
		!strings.Contains(body, "/porch init") {
		t.Fatalf("reply to a typo:\n%s", body)
	}

	// 6. carol can only read: refused, no branch.
	c = w.comment("carol", catalog, issue, "/porch init x")
	w.settle()
	if body := w.replyTo(catalog, issue, c).GetBody(); !strings.Contains(body, "🚫") || !strings.Contains(body, "needs write access") {
		t.Fatalf("reply to carol:\n%s", body)
	}
	if w.branchSHA(catalog, "drafts/x/v1") != "" {
		t.Fatal("carol's /porch init made a draft")
	}

	// 7. The bot's own comments are never commands.
	before := len(w.botComments(catalog, issue))
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, catalog)
	if err != nil {
		t.Fatal(err)
	}
	botClient, err := w.svc.Clients.Installation(w.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	own := w.commentWith(botClient, catalog, issue, "/porch init botpkg")
	w.settle()
	if own.GetUser().GetLogin() != botLogin {
		t.Fatalf("the installation commented as %q", own.GetUser().GetLogin())
	}
	if after := len(w.botComments(catalog, issue)); after != before+1 {
		t.Fatalf("bot comments %d -> %d: porchbot answered itself", before, after)
	}
	if w.branchSHA(catalog, "drafts/botpkg/v1") != "" {
		t.Fatal("a comment by the bot ran a command")
	}
	if rs, _, err := w.client("alice").Reactions.ListIssueCommentReactions(w.ctx, "acme", "catalog", own.GetID(), nil); err != nil || len(rs) != 0 {
		t.Fatalf("reactions on the bot's comment: %v %v", rs, err)
	}

	// 8. /porch list.
	c = w.comment("bob", catalog, issue, "/porch list")
	w.settle()
	body = w.replyTo(catalog, issue, c).GetBody()
	for _, pkg := range []string{"network/upf", "basens", "network/smf"} {
		if !strings.Contains(body, "`"+pkg+"`") {
			t.Errorf("/porch list does not show %s:\n%s", pkg, body)
		}
	}

	// 9. /porch reject closes a proposal; its draft stays.
	w.comment("alice", catalog, issue, "/porch init network/amf")
	w.settle()
	w.comment("alice", catalog, issue, "/porch propose network/amf/v1")
	w.settle()
	amf := w.pullFrom(catalog, "drafts/network/amf/v1")
	if amf == nil {
		t.Fatal("no proposal of network/amf")
	}
	c = w.comment("bob", catalog, amf.GetNumber(), `/porch reject "not now"`)
	w.settle()
	if got := w.pull(catalog, amf.GetNumber()); got.GetState() != "closed" || got.GetMerged() {
		t.Fatalf("rejected proposal is %s (merged %v)", got.GetState(), got.GetMerged())
	}
	if contains(w.labels(catalog, amf.GetNumber()), packages.LabelProposed) {
		t.Fatal("a rejected proposal keeps porch/proposed")
	}
	if w.branchSHA(catalog, "drafts/network/amf/v1") == "" {
		t.Fatal("reject deleted the draft branch")
	}
	rejected := false
	for _, cm := range w.botComments(catalog, amf.GetNumber()) {
		rejected = rejected || strings.Contains(cm.GetBody(), "rejected by @bob") && strings.Contains(cm.GetBody(), "not now")
	}
	if !rejected {
		t.Fatal("no rejection comment naming bob and the reason")
	}

	// 10. /porch delete basens: a deletion proposal; merged, basens leaves
	// main, its revisions stay, the deletion itself is no revision. First
	// basens gets revisions: a draft pushed by alice, proposed, approved
	// and merged with commands (the state found on main, published by
	// bob's /porch publish, is v1, the merge v2).
	seed := w.firstCommit(catalog)
	w.publishFound(catalog, seed, "basens", "network/upf")
	dir := w.clone("alice", catalog)
	w.git(dir, "switch", "-q", "-c", "drafts/basens/quota")
	w.write(dir, "basens/namespace.yaml", strings.Replace(readFile(t, dir, "basens/namespace.yaml"), `pods: "50"`, `pods: "60"`, 1))
	w.git(dir, "commit", "-q", "-am", "Allow sixty pods")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	w.comment("alice", catalog, issue, "/porch propose basens/quota")
	w.settle()
	quota := w.pullFrom(catalog, "drafts/basens/quota")
	if quota == nil {
		t.Fatal("no proposal of basens/quota")
	}
	w.comment("bob", catalog, quota.GetNumber(), "/porch approve")
	w.settle()
	quotaMerge := w.merge("alice", catalog, quota.GetNumber())
	w.settle()
	published := w.tags(catalog, "basens/")
	if len(published) != 2 || published["basens/v1"] != seed || published["basens/v2"] != quotaMerge {
		t.Fatalf("basens tags %v before the deletion", published)
	}

	c = w.comment("alice", catalog, issue, "/porch delete basens")
	w.settle()
	del := w.pullFrom(catalog, "drafts/basens/delete")
	if del == nil {
		t.Fatalf("no deletion proposal; reply:\n%s", w.replyTo(catalog, issue, c).GetBody())
	}
	// DeletionProposed, not Proposed: the two states are exclusive.
	if labels := w.labels(catalog, del.GetNumber()); len(labels) != 1 || labels[0] != packages.LabelDeletionProposed {
		t.Fatalf("deletion proposal labels: %v", labels)
	}
	w.approve("bob", catalog, del.GetNumber())
	w.settle()
	w.merge("alice", catalog, del.GetNumber())
	w.settle()
	if _, ok := w.file(catalog, "main", "basens/Kptfile"); ok {
		t.Fatal("basens is still on main")
	}
	if got := w.tags(catalog, "basens/"); !maps.Equal(got, published) {
		t.Fatalf("basens tags after the deletion %v, want %v", got, published)
	}
	told := false
	for _, cm := range w.botComments(catalog, del.GetNumber()) {
		told = told || strings.Contains(cm.GetBody(), "was deleted")
	}
	if !told {
		t.Fatal("the deletion proposal was not told that the revisions stay")
	}

	// 11. /porch edit after a publish: a draft with the published content.
	dir = w.clone("alice", catalog)
	w.git(dir, "switch", "-q", "-c", "drafts/network/upf/scale")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(readFile(t, dir, "network/upf/deployment.yaml"), "replicas: 1", "replicas: 3", 1))
	w.git(dir, "commit", "-q", "-am", "Scale the UPF")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	w.comment("alice", catalog, issue, "/porch propose network/upf/scale")
	w.settle()
	upf := w.pullFrom(catalog, "drafts/network/upf/scale")
	if upf == nil {
		t.Fatal("no proposal of network/upf/scale")
	}
	w.approve("bob", catalog, upf.GetNumber())
	w.settle()
	upfMerge := w.merge("alice", catalog, upf.GetNumber())
	w.settle()
	if got := w.tags(catalog, "network/upf/"); got["network/upf/v2"] != upfMerge || got["network/upf/v1"] != seed || len(got) != 2 {
		t.Fatalf("upf tags %v", got)
	}
	c = w.comment("alice", catalog, issue, "/porch edit network/upf")
	w.settle()
	const editDraft = "drafts/network/upf/v3"
	editHead := w.branchSHA(catalog, editDraft)
	if editHead == "" {
		t.Fatalf("no %s; reply:\n%s", editDraft, w.replyTo(catalog, issue, c).GetBody())
	}
	for _, f := range []string{"Kptfile", "deployment.yaml", "service.yaml"} {
		got, _ := w.file(catalog, editHead, "network/upf/"+f)
		pub, _ := w.file(catalog, "network/upf/v2", "network/upf/"+f)
		if got != pub {
			t.Errorf("edit draft's %s differs from v2:\n%s\nwant:\n%s", f, got, pub)
		}
	}
	if tr := w.trailer(catalog, w.firstDraftCommit(catalog, editDraft)); tr.Task == nil || tr.Task.Type != packages.TaskEdit {
		t.Fatalf("edit trailer: %+v", tr)
	}

	// 12. /porch clone in acme/edge-1: a draft whose Kptfile records the
	// upstream and pins its commit.
	const edge = "acme/edge-1"
	edgeDir := w.clone("alice", edge) // empty: a first commit makes main
	w.write(edgeDir, "README.md", "# acme/edge-1\n")
	w.git(edgeDir, "add", ".")
	w.git(edgeDir, "commit", "-q", "-m", "Start the edge site")
	w.git(edgeDir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	edgeIssue := w.createIssue("alice", edge, "Bring the UPF to the edge")
	c = w.comment("alice", edge, edgeIssue, "/porch clone acme/catalog/network/upf@v1 upf")
	w.settle()
	cloneHead := w.branchSHA(edge, "drafts/upf/v1")
	if cloneHead == "" {
		t.Fatalf("no clone draft; reply:\n%s", w.replyTo(edge, edgeIssue, c).GetBody())
	}
	k := w.kptfileAt(edge, cloneHead, "upf")
	up, lock := k.Upstream, k.UpstreamLock
	if up == nil || up.Type != "git" || up.Git == nil || !strings.HasSuffix(up.Git.Repo, "/acme/catalog") ||
		up.Git.Directory != "/network/upf" || up.Git.Ref != "network/upf/v1" {
		t.Fatalf("upstream: %+v %+v", up, up.Git)
	}
	if lock == nil || lock.Git == nil || lock.Git.Commit != seed || lock.Git.Repo != up.Git.Repo || lock.Git.Ref != "network/upf/v1" {
		t.Fatalf("upstreamLock: %+v, want commit %s", lock, seed)
	}
	if tr := w.trailer(edge, w.firstDraftCommit(edge, "drafts/upf/v1")); tr.Task == nil || tr.Task.Type != packages.TaskClone {
		t.Fatalf("clone trailer: %+v", tr)
	}
}

// kptPkgInit runs kpt pkg init (or, without kpt, skips the comparison)
// and returns the files it writes.
func kptPkgInit(t *testing.T, name, description string) map[string]string {
	t.Helper()
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Log("kpt not installed: the init files are not compared with kpt's")
		return nil
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if out, err := exec.CommandContext(ctx, kpt, "pkg", "init", dir, "--description", description).CombinedOutput(); err != nil {
		t.Fatalf("kpt pkg init: %v\n%s", err, out)
	}
	out := map[string]string{}
	for _, f := range []string{"Kptfile", "README.md", "package-context.yaml"} {
		out[f] = readFile(t, dir, f)
	}
	return out
}

// firstDraftCommit is the oldest commit of a draft branch that main lacks:
// the one the command made (render commits come on top).
func (w *world) firstDraftCommit(repo, branch string) string {
	w.t.Helper()
	dir := w.clone("alice", repo)
	commits := strings.Fields(w.git(dir, "rev-list", "--reverse", "origin/main..origin/"+branch))
	if len(commits) == 0 {
		w.t.Fatalf("%s has no commit main lacks", branch)
	}
	return commits[0]
}

// firstCommit is the root commit of main (the seed).
func (w *world) firstCommit(repo string) string {
	w.t.Helper()
	dir := w.clone("alice", repo)
	roots := strings.Fields(w.git(dir, "rev-list", "--max-parents=0", "origin/main"))
	if len(roots) != 1 {
		w.t.Fatalf("roots of %s main: %v", repo, roots)
	}
	return roots[0]
}
