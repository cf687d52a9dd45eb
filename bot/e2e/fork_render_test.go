package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestPorchRenderOnAForkPullRequest: `/porch render` in a pull request from
// a fork renders the packages it changes with built-in functions only
// (the repository's exec function stays off), reports porchbot/render on
// the fork's head, pushes nothing, and says so in its reply. The fork is a
// real one: carol forks acme/catalog, pushes to her fork and opens the
// pull request from it; alice asks for the render in a comment.
func TestPorchRenderOnAForkPullRequest(t *testing.T) {
	t.Parallel()
	w, _, ran := stampWorld(t, "exec cat")
	const repo = "acme/catalog"

	carol := w.client("carol")
	forkDir, forkHead := carolStampsInAFork(t, w)
	pr, _, err := carol.PullRequests.Create(w.ctx, "acme", "catalog", &github.NewPullRequest{
		Title: github.String("Stamp the UPF (from carol/catalog)"), Head: github.String("carol:stamp"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	mainBefore := w.branchSHA(repo, "main")
	w.settle()

	asked := w.comment("alice", repo, n, "/porch render")
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
	if got := w.git(forkDir, "rev-parse", "origin/stamp"); got != forkHead {
		t.Fatalf("the fork's branch moved: %s", got)
	}
	if got := w.git(forkDir, "ls-remote", "origin", "refs/heads/stamp"); !strings.HasPrefix(got, forkHead) {
		t.Fatalf("the fork's branch moved on the forge: %s", got)
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

// carolStampsInAFork has carol, who may only read acme/catalog, fork it
// (the App is not installed on her fork), declare the exec function
// "stamp" in network/upf on a branch "stamp" of her fork and push it. It
// returns her clone of the fork and the branch's head.
func carolStampsInAFork(t *testing.T, w *world) (forkDir, forkHead string) {
	t.Helper()
	if _, _, err := w.client("carol").Repositories.CreateFork(w.ctx, "acme", "catalog", nil); err != nil {
		if _, accepted := err.(*github.AcceptedError); !accepted {
			t.Fatal(err)
		}
	}
	forkDir = w.clone("carol", "carol/catalog")
	w.git(forkDir, "switch", "-q", "-c", "stamp", "origin/main")
	w.write(forkDir, "network/upf/Kptfile", readFile(t, forkDir, "network/upf/Kptfile")+"    - exec: stamp\n")
	w.git(forkDir, "commit", "-q", "-am", "Stamp the UPF (from a fork)")
	w.git(forkDir, "push", "-q", "origin", "HEAD")
	return forkDir, w.git(forkDir, "rev-parse", "HEAD")
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
