package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Several goroutines in two Stores (two replicas of the bot) use the same
// repository at once: reads, commits, pushes to their own branches, a race
// for one tag, and a race to advance main under leases.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	second, err := New(Options{Dir: t.TempDir(), Auth: f.store.opts.Auth, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	stores := []*Store{f.store, second}

	const workers = 8
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	tagWinners := make(chan int, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := worker(ctx, stores[i%len(stores)], f.url, i, tagWinners); err != nil {
				errs <- fmt.Errorf("worker %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(tagWinners)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	if n := len(tagWinners); n != 1 {
		t.Fatalf("%d workers created refs/tags/race/v1, want exactly 1", n)
	}
	tree := lsTree(t, f.bare, "main")
	for i := range workers {
		if got := tree[fmt.Sprintf("agents/%d/Kptfile", i)]; got == "" {
			t.Errorf("worker %d's commit is missing from main", i)
		}
		if f.remoteRef(fmt.Sprintf("refs/heads/drafts/agent-%d/w", i)).IsZero() {
			t.Errorf("worker %d's draft branch is missing", i)
		}
	}
	if got := strings.Count(mustGit(t, f.bare, "log", "--format=%s", "main"), "agent "); got != workers {
		t.Errorf("main has %d agent commits, want %d", got, workers)
	}
	mustGit(t, f.bare, "fsck", "--strict", "--no-progress")
	if got := f.store.Stats().Pushes + second.Stats().Pushes; got < 2*workers+1 {
		t.Errorf("pushes = %d, want at least %d", got, 2*workers+1)
	}
}

func worker(ctx context.Context, s *Store, url string, i int, tagWinners chan<- int) error {
	c, err := s.Fetch(ctx, url, BranchesRefSpec, TagsRefSpec)
	if err != nil {
		return err
	}
	head, err := c.ResolveRef(ctx, "main")
	if err != nil {
		return err
	}
	if _, err := c.ReadTree(ctx, head, "network/upf"); err != nil {
		return err
	}
	if _, err := c.TreeHash(ctx, head, "network"); err != nil {
		return err
	}
	files := map[string][]byte{"Kptfile": []byte(fmt.Sprintf("kind: Kptfile\nmetadata: {name: agent-%d}\n", i))}
	sig := botSignature()

	// Own branch, created with the zero lease.
	draft, err := c.Commit(ctx, CommitRequest{Parent: head, Dir: fmt.Sprintf("agents/%d", i), Files: files, Message: "draft", Author: sig})
	if err != nil {
		return err
	}
	if err := c.Push(ctx, PushRequest{Ref: plumbing.ReferenceName(fmt.Sprintf("refs/heads/drafts/agent-%d/w", i)), New: draft}); err != nil {
		return err
	}

	// Everybody wants the same tag: one wins, the others see a broken lease.
	err = c.Push(ctx, PushRequest{Ref: "refs/tags/race/v1", New: draft})
	switch {
	case err == nil:
		tagWinners <- i
	case !errors.Is(err, ErrLeaseBroken):
		return fmt.Errorf("tag race: %w", err)
	}

	// Advance main: fetch, build on the head, push under its lease, repeat
	// while someone else got there first.
	for attempt := 0; ; attempt++ {
		if attempt == 100 {
			return errors.New("main: no progress after 100 attempts")
		}
		if err := c.Fetch(ctx); err != nil {
			return err
		}
		head, err := c.ResolveRef(ctx, "main")
		if err != nil {
			return err
		}
		commit, err := c.Commit(ctx, CommitRequest{Parent: head, Dir: fmt.Sprintf("agents/%d", i), Files: files,
			Message: fmt.Sprintf("agent %d", i), Author: sig})
		if err != nil {
			return err
		}
		err = c.Push(ctx, PushRequest{Ref: "refs/heads/main", Old: head, New: commit})
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrLeaseBroken) {
			return fmt.Errorf("main: %w", err)
		}
	}
}

// Waiting for a busy repository honours the context.
func TestLockWaitHonoursContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.fetch()
	other, err := f.store.Repo(f.url) // another handle, same lock
	if err != nil {
		t.Fatal(err)
	}
	err = c.With(context.Background(), func(*git.Repository) error {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := other.ResolveRef(ctx, "main")
			done <- err
		}()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			return fmt.Errorf("ResolveRef while the repository is busy: %v, want context.Canceled", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ResolveRef(context.Background(), "main"); err != nil {
		t.Fatalf("lock not released: %v", err)
	}
}
