package gitstore

import (
	"context"
	"strings"
	"testing"
)

// A commit with Onto merges Onto into Parent: parents Parent then Onto,
// Onto's tree outside Dir, Files in Dir.
func TestCommitOntoMakesAMergeCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c := f.fetch()
	base := mustResolve(t, c, "main")
	draft := commitFiles(t, c, base, "network/upf", map[string][]byte{"Kptfile": []byte("kind: Kptfile\n# draft\n")}, "draft")
	onto := commitFiles(t, c, base, "network/smf", map[string][]byte{"Kptfile": []byte("kind: Kptfile\n# published\n")}, "published")

	merged := map[string][]byte{"Kptfile": []byte("kind: Kptfile\n# merged\n")}
	h, err := c.Commit(ctx, CommitRequest{Parent: draft, Onto: onto, Dir: "network/upf", Files: merged,
		Message: "Rebase network/upf", Author: botSignature()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Push(ctx, PushRequest{Ref: "refs/heads/rebased", New: h}); err != nil {
		t.Fatal(err)
	}
	if got := mustGit(t, f.bare, "log", "-1", "--format=%P", "rebased"); got != draft.String()+" "+onto.String() {
		t.Fatalf("parents %q, want the draft then the merged commit", got)
	}
	if got := mustGit(t, f.bare, "show", "rebased:network/smf/Kptfile"); !strings.Contains(got, "# published") {
		t.Fatalf("outside the package the tree is not Onto's: %q", got)
	}
	if got := mustGit(t, f.bare, "show", "rebased:network/upf/Kptfile"); !strings.Contains(got, "# merged") {
		t.Fatalf("the package is not Files: %q", got)
	}
	if got := mustGit(t, f.bare, "merge-base", "rebased", onto.String()); got != onto.String() {
		t.Fatalf("merge base with Onto is %s, want Onto", got)
	}
	if _, err := c.Commit(ctx, CommitRequest{Onto: onto, Dir: "network/upf", Files: merged, Message: "x", Author: botSignature()}); err == nil {
		t.Fatal("a merge commit without a Parent was made")
	}
}
