package gitstore

import (
	"context"
	"errors"
	"testing"
)

// TestPushExclusiveCreate: a create-only push of a commit the remote
// branch already holds is a success by default (a retry), and a broken
// lease when Exclusive (another replica built the same commit and created
// the branch first).
func TestPushExclusiveCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	head := mustResolve(t, c, "main")
	draft := commitFiles(t, c, head, "network/upf", map[string][]byte{"Kptfile": []byte("draft\n")}, "draft")

	const branch = "refs/heads/drafts/network/upf/merged"
	if err := c.Push(ctx, PushRequest{Ref: branch, New: draft, Exclusive: true}); err != nil {
		t.Fatalf("first exclusive create: %v", err)
	}
	if err := c.Push(ctx, PushRequest{Ref: branch, New: draft}); err != nil {
		t.Fatalf("idempotent create: %v", err)
	}
	err := c.Push(ctx, PushRequest{Ref: branch, New: draft, Exclusive: true})
	if !errors.Is(err, ErrLeaseBroken) {
		t.Fatalf("second exclusive create of the same commit: %v, want ErrLeaseBroken", err)
	}
	if got := f.remoteRef(branch); got != draft {
		t.Fatalf("server %s = %s", branch, got)
	}
}
