package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestPushFastForward(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	commit := commitFiles(t, c, head, "network/smf", map[string][]byte{"Kptfile": []byte("kind: Kptfile\n")}, "update smf")

	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: commit}); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteRef("main"); got != commit {
		t.Fatalf("server main = %s, want %s", got, commit)
	}
	if got := mustResolve(t, c, "main"); got != commit {
		t.Fatalf("cache mirror of main = %s, want %s", got, commit)
	}
	// Pushing the same again: the remote already has it.
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: commit}); err != nil {
		t.Fatalf("repeated push: %v", err)
	}
	if got := f.store.Stats().Pushes; got != 2 {
		t.Fatalf("Stats().Pushes = %d, want 2", got)
	}
	if ok, up := f.gitOps("push", "ok"), f.gitOps("push", "up_to_date"); ok != 1 || up != 1 {
		t.Fatalf("push ok=%v up_to_date=%v, want 1 and 1", ok, up)
	}
	if got := f.server.receivePacks.Load(); got != 1 {
		t.Fatalf("receive-pack requests = %d, want 1", got)
	}
}

func TestPushLeaseBrokenWhenRemoteMoved(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	stale := mustResolve(t, c, "main")

	// Someone else pushes to main after our fetch.
	f.work.write("network/upf/deployment.yaml", "kind: Deployment\nspec: {replicas: 3}\n", 0o644)
	theirs := f.work.commit("their change")
	f.work.git("push", "--quiet", "origin", "main")

	ours := commitFiles(t, c, stale, "network/upf", map[string][]byte{"Kptfile": []byte("rendered\n")}, "Render network/upf")
	err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: stale, New: ours})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("err = %v, want ErrLeaseBroken", err)
	}
	var le *LeaseError
	if !errors.As(err, &le) || le.Expected != stale || le.Actual != theirs || le.Ref != "refs/heads/main" {
		t.Fatalf("lease error = %#v", le)
	}
	if got := f.remoteRef("main"); got != theirs {
		t.Fatalf("server main = %s, want their commit %s", got, theirs)
	}
	if out := mustGit(t, f.bare, "show", "main:network/upf/deployment.yaml"); out != "kind: Deployment\nspec: {replicas: 3}" {
		t.Fatalf("their change lost: %q", out)
	}
	if got := f.server.receivePacks.Load(); got != 0 {
		t.Fatalf("objects uploaded although the lease was broken (%d receive-pack requests)", got)
	}
	if got := f.gitOps("push", "lease_broken"); got != 1 {
		t.Fatalf("push lease_broken = %v, want 1", got)
	}
	if got := mustResolve(t, c, "main"); got != stale {
		t.Fatalf("cache mirror moved on a failed push: %s", got)
	}

	// The bot's loop: fetch, rebuild on the new head, push with the new lease.
	if err := c.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	head := mustResolve(t, c, "main")
	again := commitFiles(t, c, head, "network/upf", map[string][]byte{"Kptfile": []byte("rendered\n")}, "Render network/upf")
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: again}); err != nil {
		t.Fatal(err)
	}
	if out := mustGit(t, f.bare, "rev-parse", "main~1"); out != theirs.String() {
		t.Fatalf("our commit is not on top of theirs: main~1 = %s", out)
	}
}

// The ref moves between the advertisement and the update (the window of the
// client-side check): the server refuses because the command's old value is
// the lease.
func TestPushLeaseBrokenInsideTheWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	ours := commitFiles(t, c, head, "network/upf", map[string][]byte{"Kptfile": []byte("rendered\n")}, "Render")

	f.work.write("network/smf/Kptfile", "kind: Kptfile\nmetadata: {name: smf2}\n", 0o644)
	theirs := f.work.commit("their change")
	hookDone := make(chan error, 1)
	f.server.onNextReceivePack(func() {
		_, err := runGit(f.work.dir, "push", "--quiet", "origin", "main")
		hookDone <- err
	})

	err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: ours})
	if herr := <-hookDone; herr != nil {
		t.Fatal(herr)
	}
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("err = %v, want ErrLeaseBroken", err)
	}
	var le *LeaseError
	if !errors.As(err, &le) || le.Reason == "" || le.Actual != theirs {
		t.Fatalf("lease error = %#v, want the server's refusal and their commit", le)
	}
	if got := f.remoteRef("main"); got != theirs {
		t.Fatalf("server main = %s, want their commit %s", got, theirs)
	}
}

func TestPushRewriteWithLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	base := f.remoteRef("main~1")

	// Not a fast-forward of main: built on main's parent.
	rewrite := commitFiles(t, c, base, "network/upf", map[string][]byte{"Kptfile": []byte("rewritten\n")}, "rewrite")

	// With a stale lease it is refused...
	err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: base, New: rewrite})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("stale lease: %v, want ErrLeaseBroken", err)
	}
	// ...with the current value it goes through.
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: rewrite}); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteRef("main"); got != rewrite {
		t.Fatalf("server main = %s, want %s", got, rewrite)
	}
	if _, err := runGit(f.bare, "merge-base", "--is-ancestor", head.String(), "main"); err == nil {
		t.Fatal("old head is still an ancestor: not a rewrite")
	}
}

func TestPushCreateRefWithZeroLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	draft := commitFiles(t, c, head, "network/upf", map[string][]byte{"Kptfile": []byte("draft\n")}, "draft")

	const branch = "refs/heads/drafts/network/upf/w1"
	if err := c.Push(ctx, PushRequest{Ref: branch, New: draft}); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteRef(branch); got != draft {
		t.Fatalf("server %s = %s", branch, got)
	}
	if got := mustResolve(t, c, "drafts/network/upf/w1"); got != draft {
		t.Fatalf("cache mirror = %s", got)
	}
	other := commitFiles(t, c, head, "network/upf", map[string][]byte{"Kptfile": []byte("other\n")}, "other")
	err := c.Push(ctx, PushRequest{Ref: branch, New: other})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("create over an existing branch: %v, want ErrLeaseBroken", err)
	}
	if got := f.remoteRef(branch); got != draft {
		t.Fatalf("existing branch overwritten: %s", got)
	}

	// Publishing: the tag is the compare-and-swap.
	const tag = "refs/tags/network/upf/v3"
	if err := c.Push(ctx, PushRequest{Ref: tag, New: head}); err != nil {
		t.Fatal(err)
	}
	err = c.Push(ctx, PushRequest{Ref: tag, New: draft})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("second v3: %v, want ErrLeaseBroken", err)
	}
	if got := f.remoteRef(tag); got != head {
		t.Fatalf("tag moved to %s", got)
	}

	// Someone else creates v4 between our advertisement and our update.
	hookDone := make(chan error, 1)
	f.server.onNextReceivePack(func() {
		_, err := runGit(f.bare, "update-ref", "refs/tags/network/upf/v4", draft.String(), "")
		hookDone <- err
	})
	err = c.Push(ctx, PushRequest{Ref: "refs/tags/network/upf/v4", New: head})
	if herr := <-hookDone; herr != nil {
		t.Fatal(herr)
	}
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("racing v4: %v, want ErrLeaseBroken", err)
	}
	if got := f.remoteRef("refs/tags/network/upf/v4"); got != draft {
		t.Fatalf("their v4 overwritten: %s", got)
	}
}

func TestPushDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	feature := mustResolve(t, c, "feature")
	main := mustResolve(t, c, "main")

	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/feature", Old: main}); !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("delete with a wrong lease: %v, want ErrLeaseBroken", err)
	}
	if f.remoteRef("feature") != feature {
		t.Fatal("feature deleted despite the wrong lease")
	}
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/feature", Old: feature}); err != nil {
		t.Fatal(err)
	}
	if !f.remoteRef("refs/heads/feature").IsZero() {
		t.Fatal("feature still on the server")
	}
	if _, err := c.ResolveRef(ctx, "feature"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cache mirror not deleted: %v", err)
	}
	// Already gone: nothing to do.
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/feature", Old: feature}); err != nil {
		t.Fatalf("deleting a deleted ref: %v", err)
	}
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/main"}); err == nil {
		t.Fatal("delete without a lease accepted")
	}
}

func TestPushRejectedByTheServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")

	// A server that refuses non-fast-forward updates (like a protected branch).
	mustGit(t, f.bare, "config", "receive.denyNonFastForwards", "true")
	rewrite := commitFiles(t, c, f.remoteRef("main~1"), "x", map[string][]byte{"y": []byte("z\n")}, "rewrite")
	err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: rewrite})
	if !errors.Is(err, ErrRejected) || errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("err = %v, want ErrRejected and not ErrLeaseBroken", err)
	}

	// A hook that refuses, with its message carried in the error.
	hook := filepath.Join(f.bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'GH006: Protected branch update failed'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ff := commitFiles(t, c, head, "x", map[string][]byte{"y": []byte("z\n")}, "ff")
	err = c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: ff})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "GH006") {
		t.Fatalf("err = %v, want ErrRejected with the hook's message", err)
	}
	if f.remoteRef("main") != head {
		t.Fatal("main moved")
	}
	if got := f.gitOps("push", "error"); got != 2 {
		t.Fatalf("push error = %v, want 2", got)
	}
}

func TestPushAuthFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	commit := commitFiles(t, c, head, "x", map[string][]byte{"y": []byte("z\n")}, "x")
	f.token.Store("revoked")
	err := c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: commit})
	if !errors.Is(err, ErrAuthFailed) || !strings.Contains(err.Error(), "acme/packages") {
		t.Fatalf("err = %v, want ErrAuthFailed naming the repository", err)
	}
	if f.remoteRef("main") != head {
		t.Fatal("main moved")
	}
}

func TestPushBadRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	for name, req := range map[string]PushRequest{
		"short ref":      {Ref: "main", Old: head, New: head},
		"bad ref":        {Ref: "refs/heads/a..b", Old: head, New: head},
		"unknown object": {Ref: "refs/heads/main", Old: head, New: plumbing.NewHash(strings.Repeat("12", 20))},
	} {
		if err := c.Push(ctx, req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if got := f.server.receivePacks.Load(); got != 0 {
		t.Fatalf("bad requests reached the server: %d", got)
	}
}
