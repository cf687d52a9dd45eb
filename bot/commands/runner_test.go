package commands_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
)

const (
	reactionCall   = "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
	permissionCall = "GET /repos/{owner}/{repo}/collaborators/{user}/permission"
	replyCall      = "POST /repos/{owner}/{repo}/issues/{number}/comments"
)

const basensKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\ninfo:\n  description: base namespace\n"
const basensNS = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n"

// wantCalls checks the REST calls of one comment.
func wantCalls(t *testing.T, what string, calls map[string]int64, want map[string]int64) {
	t.Helper()
	t.Logf("%s: %d REST calls %v", what, total(calls), calls)
	if len(calls) != len(want) {
		t.Errorf("%s: calls %v, want %v", what, calls, want)
		return
	}
	for k, v := range want {
		if calls[k] != v {
			t.Errorf("%s: calls %v, want %v", what, calls, want)
			return
		}
	}
}

// draftFiles reads a draft branch's package from a fresh session.
func (h *harness) draftFiles(t *testing.T, repo, branch, dir string) (map[string][]byte, plumbing.Hash) {
	t.Helper()
	ctx := context.Background()
	s, err := h.opener.Open(ctx, h.repo(repo))
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.Git.ResolveRef(ctx, "refs/heads/"+branch)
	if err != nil {
		t.Fatalf("branch %s of acme/%s: %v", branch, repo, err)
	}
	files, err := s.Git.ReadTree(ctx, head, dir)
	if err != nil {
		t.Fatal(err)
	}
	return files, head
}

func (h *harness) trailer(t *testing.T, repo string, commit plumbing.Hash) packages.Trailer {
	t.Helper()
	c, _, err := h.user(forgetest.AliceToken).Git.GetCommit(context.Background(), "acme", repo, commit.String())
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := packages.FindTrailer(c.GetMessage())
	if !ok {
		t.Fatalf("no trailer in %q", c.GetMessage())
	}
	return tr
}

func (h *harness) branchExists(t *testing.T, repo, branch string) bool {
	t.Helper()
	_, resp, err := h.user(forgetest.AliceToken).Repositories.GetBranch(context.Background(), "acme", repo, branch, 0)
	if resp != nil && resp.StatusCode == 404 {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func TestRunnerIgnoresBots(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	for _, who := range []struct{ login, typ string }{{"porchbot[bot]", "Bot"}, {"renovate[bot]", "User"}, {"ci-robot", "Bot"}} {
		ev := h.comment(t, forgetest.AliceToken, "catalog", n, who.login, "/porch init basens")
		ev.AuthorType = who.typ
		calls, reply := h.run(t, ev)
		if len(calls) != 0 || reply != "" {
			t.Errorf("%s: a bot's comment got calls %v, reply %q", who.login, calls, reply)
		}
	}
	if h.branchExists(t, "catalog", "drafts/basens/v1") {
		t.Fatal("a bot's command ran")
	}
}

func TestRunnerWithoutCommandsDoesNothing(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	calls, reply := h.run(t, h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "LGTM\n```\n/porch init x\n```\n> /porch list"))
	if len(calls) != 0 || reply != "" {
		t.Fatalf("calls %v reply %q", calls, reply)
	}
}

func TestRunnerRefusesUsersWithoutWriteAccess(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	for _, tc := range []struct {
		login, token, perm string
	}{
		{"carol", forgetest.CarolToken, "read"},
		// mallory cannot comment on the private repository; the event is
		// built as if she had (a public repository would let her).
		{"mallory", forgetest.AliceToken, "none"},
	} {
		calls, reply := h.run(t, h.comment(t, tc.token, "catalog", n, tc.login, "/porch init basens\n/porch list"))
		wantCalls(t, tc.login, calls, map[string]int64{reactionCall: 1, permissionCall: 1, replyCall: 1})
		want := "@" + tc.login + " needs write access to acme/catalog to run `/porch init` (their permission: " + tc.perm + ")."
		if !strings.Contains(reply, want) || !strings.Contains(reply, "🚫 `/porch list`") {
			t.Errorf("%s: reply\n%s\nlacks %q", tc.login, reply, want)
		}
	}
	if h.branchExists(t, "catalog", "drafts/basens/v1") {
		t.Fatal("a refused command ran")
	}
}

func TestRunnerInitCreatesTheDraftOnTheForge(t *testing.T) {
	h := newHarness(t)
	base := h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	calls, reply := h.run(t, h.comment(t, forgetest.AliceToken, "catalog", n, "alice", `/porch init network/upf --description "User plane"`))
	wantCalls(t, "init", calls, map[string]int64{reactionCall: 1, permissionCall: 1, replyCall: 1})

	files, head := h.draftFiles(t, "catalog", "drafts/network/upf/v1", "network/upf")
	want := kptfile.InitFiles(kptfile.InitOptions{Name: "upf", Description: "User plane"})
	if len(files) != len(want) {
		t.Fatalf("files %v", files)
	}
	for name, data := range want {
		if string(files[name]) != string(data) {
			t.Errorf("%s:\n%s\nwant kpt pkg init's\n%s", name, files[name], data)
		}
	}
	tr := h.trailer(t, "catalog", head)
	if tr.Package != "network/upf" || tr.WorkspaceName != "v1" || tr.Task.Type != "init" {
		t.Errorf("trailer %+v", tr)
	}
	web := h.env.Forge.BaseURL()
	for _, s := range []string{
		"@alice\n",
		"✅ `/porch init network/upf --description \"User plane\"`",
		"Created draft [`drafts/network/upf/v1`](" + web + "/acme/catalog/tree/drafts/network/upf/v1) with the files of `kpt pkg init`, on `main` at `" + base[:7] + "`",
		"(commit [`" + head.String()[:7] + "`](" + web + "/acme/catalog/commit/" + head.String() + "))",
		"`/porch propose network/upf/v1`",
	} {
		if !strings.Contains(reply, s) {
			t.Errorf("reply\n%s\nlacks %q", reply, s)
		}
	}
	// The reaction is there, once.
	rs, _, err := h.user(forgetest.AliceToken).Reactions.ListIssueCommentReactions(context.Background(), "acme", "catalog",
		h.comments(t, "catalog", n)[0].GetID(), nil)
	if err != nil || len(rs) != 1 || rs[0].GetContent() != "eyes" {
		t.Fatalf("reactions %v %v", rs, err)
	}

	// Again: refused, clearly.
	_, reply = h.run(t, h.comment(t, forgetest.BobToken, "catalog", n, "bob", "/porch init network/upf"))
	if !strings.Contains(reply, "❌ `/porch init network/upf`\ndraft `drafts/network/upf/v1` already exists; pass --workspace to start another one") {
		t.Errorf("second init:\n%s", reply)
	}
}

func TestRunnerEditAndRollbackFromTags(t *testing.T) {
	h := newHarness(t)
	v1 := h.seed(t, "catalog", map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte(basensNS)})
	h.ref(t, "catalog", "refs/tags/basens/v1", v1)
	v2 := h.seed(t, "catalog", map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte(basensNS + "  labels:\n    v: \"2\"\n")})
	h.ref(t, "catalog", "refs/tags/basens/v2", v2)
	n := h.issue(t, "catalog")

	calls, reply := h.run(t, h.comment(t, forgetest.BobToken, "catalog", n, "bob",
		"Two drafts please:\n/porch edit basens\n/porch rollback basens v1 --workspace back"))
	wantCalls(t, "edit+rollback", calls, map[string]int64{reactionCall: 1, permissionCall: 1, replyCall: 1})

	edit, head := h.draftFiles(t, "catalog", "drafts/basens/v3", "basens")
	if !strings.Contains(string(edit["ns.yaml"]), `v: "2"`) {
		t.Errorf("edit copied %s", edit["ns.yaml"])
	}
	if tr := h.trailer(t, "catalog", head); tr.Task.Type != "edit" || !strings.Contains(string(tr.Task.Spec), "basens/v2") {
		t.Errorf("edit trailer %+v", tr)
	}
	back, _ := h.draftFiles(t, "catalog", "drafts/basens/back", "basens")
	if string(back["ns.yaml"]) != basensNS {
		t.Errorf("rollback content %s", back["ns.yaml"])
	}
	web := h.env.Forge.BaseURL()
	for _, s := range []string{
		"copied from [`basens/v2`](" + web + "/acme/catalog/tree/basens/v2) (the same content as on `main`)",
		"✅ `/porch rollback basens v1 --workspace back`\nCreated draft [`drafts/basens/back`]",
		"with the content of [`basens/v1`](" + web + "/acme/catalog/tree/basens/v1)",
	} {
		if !strings.Contains(reply, s) {
			t.Errorf("reply\n%s\nlacks %q", reply, s)
		}
	}

	_, reply = h.run(t, h.comment(t, forgetest.BobToken, "catalog", n, "bob", "/porch edit basens --from v9"))
	if !strings.Contains(reply, "`basens` has no revision `v9` (published: `v1`, `v2`).") {
		t.Errorf("reply\n%s", reply)
	}
}

func TestRunnerCloneFromAnotherRepository(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.seed(t, "catalog", map[string][]byte{"basens/Kptfile": []byte(basensKptfile), "basens/ns.yaml": []byte(basensNS)})
	h.ref(t, "catalog", "refs/tags/basens/v1", sha)
	h.createRepo(t, "edge-1", map[string]forge.Permission{"alice": forge.PermAdmin, "mallory": forge.PermWrite})
	n := h.issue(t, "edge-1")

	calls, reply := h.run(t, h.comment(t, forgetest.AliceToken, "edge-1", n, "alice", "/porch clone acme/catalog/basens@v1 basens"))
	// The harness keeps no permission answers and no event gave edge-1's
	// visibility: the command's permission, the source read and this
	// repository's write (internal/flow), and both repositories. The
	// write is alice's permission on edge-1 asked again: revalidated, a
	// 304 that GitHub does not charge (forge.Counted).
	wantCalls(t, "clone", calls, map[string]int64{reactionCall: 1, permissionCall: 2, replyCall: 1, "GET /repos/{owner}/{repo}": 2})

	files, head := h.draftFiles(t, "edge-1", "drafts/basens/v1", "basens")
	repo := h.env.Forge.BaseURL() + "/acme/catalog"
	wantKptfile := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n" +
		"upstream:\n  type: git\n  git:\n    repo: " + repo + "\n    directory: /basens\n    ref: basens/v1\n  updateStrategy: resource-merge\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: " + repo + "\n    directory: /basens\n    ref: basens/v1\n    commit: " + sha + "\n" +
		"info:\n  description: base namespace\n"
	if string(files["Kptfile"]) != wantKptfile {
		t.Errorf("Kptfile:\n%s\nwant (kpt pkg get's):\n%s", files["Kptfile"], wantKptfile)
	}
	wantNS := "apiVersion: v1\nkind: Namespace\nmetadata: # kpt-merge: /basens\n  name: basens\n  annotations:\n" +
		"    internal.kpt.dev/upstream-identifier: '|Namespace|default|basens'\n"
	if string(files["ns.yaml"]) != wantNS {
		t.Errorf("ns.yaml:\n%s\nwant (kpt pkg get's):\n%s", files["ns.yaml"], wantNS)
	}
	if tr := h.trailer(t, "edge-1", head); tr.Task.Type != "clone" || tr.Package != "basens" {
		t.Errorf("trailer %+v", tr)
	}
	if !strings.Contains(reply, "cloned from `"+repo+"/basens@basens/v1` at `"+sha[:7]+"`") {
		t.Errorf("reply\n%s", reply)
	}

	// mallory may write to edge-1 but cannot read acme/catalog.
	calls, reply = h.run(t, h.comment(t, forgetest.AliceToken, "edge-1", n, "mallory", "/porch clone acme/catalog/basens@v1 other"))
	if !strings.Contains(reply, "@\u200bmallory cannot read acme/catalog: porchbot carries content only from repositories the requester can read") {
		t.Errorf("reply\n%s", reply)
	}
	t.Logf("refused clone: %d REST calls %v", total(calls), calls)
	// Another host, refused before anything is read.
	_, reply = h.run(t, h.comment(t, forgetest.AliceToken, "edge-1", n, "alice", "/porch clone https://gitlab.com/x/y.git/p@v1 other"))
	if !strings.Contains(reply, "porchbot clones only from repositories on "+strings.Split(h.env.Forge.BaseURL(), "/")[0]) {
		t.Errorf("reply\n%s", reply)
	}
	// A repository porchbot cannot see.
	_, reply = h.run(t, h.comment(t, forgetest.AliceToken, "edge-1", n, "alice", "/porch clone elsewhere/repo/basens@v1 other"))
	if !strings.Contains(reply, "porchbot is not installed on elsewhere/repo") {
		t.Errorf("reply\n%s", reply)
	}
	if _, err := h.opener.Open(ctx, h.repo("edge-1")); err != nil {
		t.Fatal(err)
	}
}

func TestRunnerList(t *testing.T) {
	h := newHarness(t)
	sha := h.seed(t, "catalog", map[string][]byte{"basens/Kptfile": []byte(basensKptfile)})
	h.ref(t, "catalog", "refs/tags/basens/v1", sha)
	n := h.issue(t, "catalog")
	h.run(t, h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch init network/upf"))

	calls, reply := h.run(t, h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch list"))
	// alice's permission, asked by the /porch init before, is revalidated:
	// a 304, not charged.
	wantCalls(t, "list", calls, map[string]int64{reactionCall: 1, replyCall: 1, "GET /repos/{owner}/{repo}/pulls": 1})
	web := h.env.Forge.BaseURL()
	for _, s := range []string{
		"**Packages** on `main`",
		"| [`basens`](" + web + "/acme/catalog/tree/main/basens) | [`v1`](" + web + "/acme/catalog/tree/basens/v1) |  |",
		"**Drafts**",
		"| [`drafts/network/upf/v1`](" + web + "/acme/catalog/tree/drafts/network/upf/v1) | none: `/porch propose network/upf/v1` |",
		"**Proposals**\n\nnone.",
		"**Pending updates**\n\nnone.",
	} {
		if !strings.Contains(reply, s) {
			t.Errorf("reply\n%s\nlacks %q", reply, s)
		}
	}
}

func TestRunnerUnknownVerbSuggestsAndShowsHelp(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n")})
	n := h.issue(t, "catalog")
	calls, reply := h.run(t, h.comment(t, forgetest.CarolToken, "catalog", n, "carol", "/porch pubilsh"))
	wantCalls(t, "unknown verb", calls, map[string]int64{reactionCall: 1, replyCall: 1})
	for _, s := range []string{
		"❌ `/porch pubilsh`\nunknown command `/porch pubilsh`. Did you mean `/porch publish`?",
		"porchbot's commands:\n\n| command | effect | who may run it |",
		"| `/porch rollback <package> v<N> [--workspace W]` |",
	} {
		if !strings.Contains(reply, s) {
			t.Errorf("reply\n%s\nlacks %q", reply, s)
		}
	}

	calls, reply = h.run(t, h.comment(t, forgetest.CarolToken, "catalog", n, "carol", "/porch help"))
	wantCalls(t, "help", calls, map[string]int64{reactionCall: 1, replyCall: 1})
	if strings.Count(reply, "| command | effect | who may run it |") != 1 {
		t.Errorf("help reply\n%s", reply)
	}
}

func TestRunnerProposalVerbsCallTheLifecycle(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n"), "old/Kptfile": []byte(basensKptfile)})
	s, err := h.opener.Open(ctx, h.repo("catalog"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proposals.NewDraft(ctx, s, proposals.NewDraftRequest{Package: "basens"}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := h.user(forgetest.AliceToken).PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("basens"), Head: github.String("drafts/basens/v1"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	inPR := func(token, login, body string) commands.CommentEvent {
		ev := h.comment(t, token, "catalog", n, login, body)
		ev.IsPullRequest = true
		return ev
	}

	// No head in the event: the runner reads the pull request, once.
	calls, reply := h.run(t, inPR(forgetest.AliceToken, "alice", "/porch propose\n/porch render"))
	wantCalls(t, "propose+render", calls, map[string]int64{reactionCall: 1, permissionCall: 1, replyCall: 1, "GET /repos/{owner}/{repo}/pulls/{number}": 1})
	web := h.env.Forge.BaseURL()
	if !strings.Contains(reply, "Opened the proposal. — [#42]("+web+"/acme/catalog/pull/42) · [`drafts/basens/v1`]("+web+"/acme/catalog/tree/drafts/basens/v1)") ||
		!strings.Contains(reply, "Rendered. — [check](https://example.com/check/1)") {
		t.Errorf("reply\n%s", reply)
	}

	// approve is judged by the policy, not by write access: no permission
	// call; and it binds to the comment's time, not to a head the runner reads.
	ev := inPR(forgetest.CarolToken, "carol", "/porch approve")
	written := ev.CreatedAt.UTC().Format(time.RFC3339)
	calls, _ = h.run(t, ev)
	wantCalls(t, "approve", calls, map[string]int64{reactionCall: 1, replyCall: 1})

	h.run(t, inPR(forgetest.BobToken, "bob", "/porch reject this isn't ready\n/porch publish\n/porch delete old\n/porch propose basens/v1"))
	sha := pr.GetHead().GetSHA()
	want := []string{"propose acme/catalog basens/v1 by alice", "render basens/v1 at " + sha, "approve #" + itoa(n) + " written " + written + " by carol",
		"reject #" + itoa(n) + " by bob: this isn't ready", "publish #" + itoa(n) + " by bob", "delete old by bob",
		"propose acme/catalog basens/v1 by bob"}
	if got := h.fake.Calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lifecycle calls:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Pull-request verbs in an issue; upgrade without an Upgrader.
	is := h.issue(t, "catalog")
	_, reply = h.run(t, h.comment(t, forgetest.AliceToken, "catalog", is, "alice", "/porch render\n/porch propose\n/porch upgrade basens --to v2"))
	for _, s := range []string{
		"🚫 `/porch render`\n`/porch render` works in pull request comments only.",
		"❌ `/porch propose`\nname the draft: `/porch propose <package>/<workspace>`",
		"❌ `/porch upgrade basens --to v2`\n`/porch upgrade` is not available on this server",
	} {
		if !strings.Contains(reply, s) {
			t.Errorf("reply\n%s\nlacks %q", reply, s)
		}
	}
}

func TestRunnerShowsRefusalsButNotInternalErrors(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "catalog", map[string][]byte{"README.md": []byte("x\n"), "basens/Kptfile": []byte(basensKptfile)})
	n := h.issue(t, "catalog")
	h.fake.err = &commands.UserError{Msg: "basens is not a package on main; ask @bob"}
	_, reply := h.run(t, h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch delete basens"))
	if !strings.Contains(reply, "❌ `/porch delete basens`\nbasens is not a package on main; ask @\u200bbob") {
		t.Errorf("reply\n%s", reply)
	}
	h.fake.err = errors.New("open /var/lib/porchbot/cache: permission denied")
	ev := h.comment(t, forgetest.AliceToken, "catalog", n, "alice", "/porch delete basens")
	_, reply = h.run(t, ev)
	if strings.Contains(reply, "/var/lib") || !strings.Contains(reply, "internal error: this is porchbot's fault") ||
		!strings.Contains(reply, "comment id "+itoa64(ev.CommentID)) {
		t.Errorf("reply\n%s", reply)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
