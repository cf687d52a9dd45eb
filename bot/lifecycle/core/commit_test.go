package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
)

// TestCommitUnderLease: the one "commit under a lease, refetch, retry"
// helper, on the forge. The session sees the branch at `seen`; meanwhile
// someone may move it (alice's commit), create it or delete it. A moved
// branch is refetched and built upon, or left alone when build declines:
// alice's commit is never overwritten.
func TestCommitUnderLease(t *testing.T) {
	const branch = "drafts/basens/w1"
	kptfile := []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n")
	cases := []struct {
		name        string
		exists      bool   // the branch exists when the session opens
		meanwhile   string // "", "alice commits", "deleted"
		attempts    int
		decline     bool   // build declines a head it did not see
		want        string // "pushed", "declined", "lease broken"
		wantCalls   int
		wantOnAlice bool // the final head descends from alice's commit
	}{
		{name: "not moved", exists: true, attempts: 3, want: "pushed", wantCalls: 1},
		{name: "moved meanwhile: refetch and build on it", exists: true, meanwhile: "alice commits", attempts: 3,
			want: "pushed", wantCalls: 2, wantOnAlice: true},
		{name: "moved by someone else: declined, never overwritten", exists: true, meanwhile: "alice commits", attempts: 3,
			decline: true, want: "declined", wantCalls: 2, wantOnAlice: true},
		{name: "moved, no attempt left: lease broken", exists: true, meanwhile: "alice commits", attempts: 1,
			want: "lease broken", wantCalls: 1, wantOnAlice: true},
		{name: "created meanwhile: declined", meanwhile: "alice commits", attempts: 2, decline: true,
			want: "declined", wantCalls: 2, wantOnAlice: true},
		{name: "created meanwhile: built upon", meanwhile: "alice commits", attempts: 2,
			want: "pushed", wantCalls: 2, wantOnAlice: true},
		{name: "deleted meanwhile: built again from nothing", exists: true, meanwhile: "deleted", attempts: 2,
			want: "pushed", wantCalls: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := lifecycletest.New(t)
			ctx := context.Background()
			base := plumbing.NewHash(h.Seed(t, map[string][]byte{"basens/Kptfile": kptfile}))
			alice, _ := h.Env.Forge.Account("alice")
			if c.exists {
				if _, err := h.Env.Forge.CommitFiles("acme/catalog", branch, map[string][]byte{"basens/Kptfile": kptfile, "basens/a.yaml": []byte("a: 1\n")}, "w1", alice); err != nil {
					t.Fatal(err)
				}
			}
			s := h.Open(t)
			seen, err := s.Git.ResolveRef(ctx, "refs/heads/"+branch)
			if c.exists != (err == nil) {
				t.Fatalf("branch seen: %s %v", seen, err)
			}
			var aliceHead plumbing.Hash
			switch c.meanwhile {
			case "alice commits":
				sha, err := h.Env.Forge.CommitFiles("acme/catalog", branch, map[string][]byte{"basens/Kptfile": kptfile, "basens/alice.yaml": []byte("by: alice\n")}, "alice's edit", alice)
				if err != nil {
					t.Fatal(err)
				}
				aliceHead = plumbing.NewHash(sha)
			case "deleted":
				if _, err := h.User(forgetest.AliceToken).Git.DeleteRef(ctx, "acme", "catalog", "heads/"+branch); err != nil {
					t.Fatal(err)
				}
			}

			var heads []plumbing.Hash
			res, err := s.CommitUnderLease(ctx, core.Identity{}, branch, seen, c.attempts,
				func(_ context.Context, head plumbing.Hash) (*core.PackageCommit, error) {
					heads = append(heads, head)
					if c.decline && head != seen {
						return nil, nil
					}
					parent := head
					if parent.IsZero() {
						parent = base
					}
					return &core.PackageCommit{Parent: parent, Dir: "basens", AllowEmpty: true,
						Files:   map[string][]byte{"Kptfile": kptfile, "bot.yaml": []byte("by: porchbot\n")},
						Message: "Render basens", Trailer: packages.Trailer{Package: "basens", WorkspaceName: "w1", Revision: "0"}}, nil
				})
			got := "pushed"
			switch {
			case errors.Is(err, gitstore.ErrLeaseBroken):
				got = "lease broken"
			case err != nil:
				t.Fatal(err)
			case !res.Pushed:
				got = "declined"
			}
			if got != c.want || res.Attempts != c.wantCalls || len(heads) != c.wantCalls {
				t.Fatalf("%s after %d attempts (build saw %v), want %s after %d", got, res.Attempts, heads, c.want, c.wantCalls)
			}
			if heads[0] != seen {
				t.Errorf("first build at %s, want the head the session saw %s", heads[0], seen)
			}
			if c.wantCalls > 1 && heads[1] != aliceHead {
				t.Errorf("rebuilt at %s, want the branch's new head %s", heads[1], aliceHead)
			}

			// The branch on the forge: alice's commit is kept.
			ref, _, err := h.User(forgetest.AliceToken).Git.GetRef(ctx, "acme", "catalog", "heads/"+branch)
			if err != nil {
				t.Fatal(err)
			}
			tip := plumbing.NewHash(ref.GetObject().GetSHA())
			switch got {
			case "pushed":
				if tip != res.Head {
					t.Errorf("branch at %s, pushed %s", tip, res.Head)
				}
				cm, _, err := h.User(forgetest.AliceToken).Git.GetCommit(ctx, "acme", "catalog", tip.String())
				if err != nil {
					t.Fatal(err)
				}
				want := seen
				if c.wantOnAlice {
					want = aliceHead
				} else if c.meanwhile == "deleted" {
					want = base
				}
				if len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != want.String() {
					t.Errorf("pushed commit's parents %v, want %s", cm.Parents, want)
				}
			default:
				if tip != aliceHead {
					t.Errorf("branch at %s, want alice's %s untouched", tip, aliceHead)
				}
			}
		})
	}
}
