package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot"
	"github.com/porchbot/porchbot/bot/commands"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
)

// TestPorchRenderOnAForkPullRequest: `/porch render` in a pull request from
// a fork renders the packages it changes with built-in functions only
// (the repository's exec function stays off), reports porchbot/render on
// the fork's head, pushes nothing, and says so in its reply.
//
// The forge has no forks (see TestForkRendersWithBuiltinsOnly): the pull
// request is an issue of the repository whose head is published as
// refs/pull/<N>/head, and the comment event carries the fork's head, as
// the command runner gets it from a pull request.
func TestPorchRenderOnAForkPullRequest(t *testing.T) {
	w, dir, ran := stampWorld(t, "exec cat")
	const repo = "acme/catalog"

	n := w.createIssue("alice", repo, "Stamp the UPF (from mallory/catalog)")
	w.write(dir, "network/upf/Kptfile", readFile(t, dir, "network/upf/Kptfile")+"    - exec: stamp\n")
	w.git(dir, "commit", "-q", "-am", "Stamp the UPF (from a fork)")
	forkHead := w.git(dir, "rev-parse", "HEAD")
	w.git(dir, "push", "-q", "origin", "HEAD:refs/pull/"+strconv.Itoa(n)+"/head")
	mainBefore := w.branchSHA(repo, "main")
	w.settle()

	asked := w.comment("alice", repo, n, "Could porchbot render this?")
	w.settle()
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	runner := w.svc.App.Comments.(*bot.Commands).Runner
	if err := runner.Handle(w.ctx, commands.CommentEvent{
		Repo:   core.Repo{Owner: "acme", Name: "catalog", InstallationID: id, DefaultBranch: "main"},
		Number: n, IsPullRequest: true, CommentID: asked.GetID(), Author: "alice", AuthorType: "User",
		Body: "/porch render", HeadRef: "stamp", HeadSHA: forkHead, HeadRepo: "mallory/catalog",
	}); err != nil {
		t.Fatal(err)
	}
	w.settle()

	if n := ran(); n != 0 {
		t.Fatalf("the exec function ran %d time(s) for a fork", n)
	}
	run := w.checkRunMaybe(repo, forkHead, "porchbot/render")
	if run == nil {
		t.Fatal("no porchbot/render on the fork's head")
	}
	if run.GetStatus() != "completed" || !strings.Contains(run.GetOutput().GetTitle(), "1 exec function(s) not run") {
		t.Fatalf("render check of the fork: %s %s %q", run.GetStatus(), run.GetConclusion(), run.GetOutput().GetTitle())
	}
	if got := w.branchSHA(repo, "main"); got != mainBefore {
		t.Fatal("main moved")
	}
	if got := w.git(dir, "ls-remote", "origin", "refs/pull/"+strconv.Itoa(n)+"/head"); !strings.HasPrefix(got, forkHead) {
		t.Fatalf("the fork's head moved: %s", got)
	}
	reply := w.replyTo(repo, n, asked).GetBody()
	for _, want := range []string{"built-in functions only", "nothing is pushed", "`network/upf`: failure"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	if strings.Contains(reply, "comes from a fork") {
		t.Errorf("the command was refused:\n%s", reply)
	}
}

// stampWorld is a world whose acme/catalog declares the exec function
// "stamp" (a script that records each run, then runs body) and whose
// server allows it; ran counts its runs. dir is alice's clone, on main.
func stampWorld(t *testing.T, body string) (w *world, dir string, ran func() int) {
	t.Helper()
	tmp := t.TempDir()
	runs := filepath.Join(tmp, "runs")
	script := filepath.Join(tmp, "stamp.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho ran >> '"+runs+"'\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ran = func() int {
		data, err := os.ReadFile(runs)
		if os.IsNotExist(err) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "ran\n")
	}
	w = newWorld(t, "--exec-allowlist", "stamp="+script)
	dir = w.clone("alice", "acme/catalog")
	w.write(dir, ".github/porchbot.yaml", readFile(t, dir, ".github/porchbot.yaml")+"functions:\n  exec:\n    stamp: "+script+"\n")
	w.git(dir, "commit", "-q", "-am", "Declare the stamp exec function")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	return w, dir, ran
}
