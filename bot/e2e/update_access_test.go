package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestUpgradeCannotReadAcrossInstallations: beta's admin writes a Kptfile
// naming acme's private acme/vault as upstream and asks /porch upgrade.
// beta's installation cannot read acme/vault: nothing of it reaches beta's
// repository (no update branch, no pull request), and the reply says why.
func TestUpgradeCannotReadAcrossInstallations(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fg := w.svc.Embedded.Forge
	if _, err := fg.CreateRepo("acme", "vault", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	alice, _ := fg.Account("alice")
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	v1, err := fg.CommitFiles("acme/vault", "main", map[string][]byte{"app/Kptfile": []byte(kf),
		"app/secret.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: one\n")}, "v1", alice)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := fg.CommitFiles("acme/vault", "main", map[string][]byte{"app/Kptfile": []byte(kf),
		"app/secret.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: the-secret\n")}, "v2", alice)
	if err != nil {
		t.Fatal(err)
	}
	for tag, sha := range map[string]string{"app/v1": v1, "app/v2": v2} {
		if _, _, err := w.client("alice").Git.CreateRef(w.ctx, "acme", "vault", &github.Reference{Ref: github.String("refs/tags/" + tag),
			Object: &github.GitObject{SHA: github.String(sha)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fg.AddOrg("beta", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.CreateRepo("beta", "site", forge.RepoOptions{Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.Install("beta"); err != nil {
		t.Fatal(err)
	}
	vaultURL := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "vault"), ".git")
	lock := "    repo: " + vaultURL + "\n    directory: /app\n    ref: app/v1\n"
	if _, err := fg.CommitFiles("beta/site", "main", map[string][]byte{
		"app/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n" + lock +
			"  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n" + lock + "    commit: " + v1 + "\n"),
		"app/secret.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: one\n"),
	}, "Track the vault", alice); err != nil {
		t.Fatal(err)
	}
	w.settle()

	issue := w.createIssue("alice", "beta/site", "Upgrade")
	c := w.comment("alice", "beta/site", issue, "/porch upgrade app")
	w.settle()
	reply := w.replyTo("beta/site", issue, c).GetBody()
	if !strings.Contains(reply, "cannot read its upstream") {
		t.Errorf("reply: %s", reply)
	}
	if got := w.branchSHA("beta/site", "porch/update/app"); got != "" {
		secret, _ := w.file("beta/site", got, "app/secret.yaml")
		t.Fatalf("acme/vault's content reached beta/site on porch/update/app:\n%s", secret)
	}
	if prs := w.updatePullsOf("beta/site", "porch/update/app"); len(prs) != 0 {
		t.Fatalf("%d update pull requests in beta/site", len(prs))
	}
}
