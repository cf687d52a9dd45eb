package updates_test

import (
	"context"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
)

// TestUpstreamSetAtFindsTheCommitThatNamedTheUpstream: the commit held
// responsible for a package's upstream is the one that made its Kptfile
// name that repository, not a later change of ref or of other files, nor
// the earlier commit that named another repository.
func TestUpstreamSetAtFindsTheCommitThatNamedTheUpstream(t *testing.T) {
	h := lifecycletest.New(t)
	kf := func(repo, ref string) []byte {
		return []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n    repo: " + repo +
			"\n    directory: /app\n    ref: " + ref + "\n  updateStrategy: resource-merge\n")
	}
	commit := func(login string, files map[string][]byte) string {
		t.Helper()
		a, _ := h.Env.Forge.Account(login)
		sha, err := h.Env.Forge.CommitFiles("acme/catalog", "main", files, "change", a)
		if err != nil {
			t.Fatal(err)
		}
		return sha
	}
	other, vault := h.Env.Forge.BaseURL()+"/acme/other", h.Env.Forge.BaseURL()+"/acme/vault"
	commit("alice", map[string][]byte{"README.md": []byte("hi\n")})
	commit("alice", map[string][]byte{"README.md": []byte("hi\n"), "app/Kptfile": kf(other, "app/v1")})
	set := commit("bob", map[string][]byte{"README.md": []byte("hi\n"), "app/Kptfile": kf(vault, "app/v1")})
	commit("carol", map[string][]byte{"README.md": []byte("hi\n"), "app/Kptfile": kf(vault, "app/v2")})
	commit("alice", map[string][]byte{"README.md": []byte("hello\n"), "app/Kptfile": kf(vault, "app/v2")})

	got, err := updates.UpstreamSetAt(context.Background(), h.Open(t), "app")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != set {
		t.Errorf("set at %s, want bob's %s", got, set)
	}
}
