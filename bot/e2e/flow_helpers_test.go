package e2e

import (
	"strings"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
)

// Helpers of the scenarios of content crossing repositories
// (internal/flow): acme/vault, private (alice admin, bob write), publishes
// package app; mallory, a write collaborator of the public acme/site, cannot
// read it.

const (
	vaultRepo = "acme/vault"
	siteRepo  = "acme/site"
)

// vaultApp is package app of acme/vault at a revision: its ConfigMap
// holds the secret value.
func vaultApp(secret string) map[string]string {
	return map[string]string{
		"app/Kptfile":   "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\ninfo:\n  description: the vault's app\n",
		"app/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: " + secret + "\n",
		"app/README.md": "app\n",
	}
}

// privateVault makes acme/vault (private) with app/v1 published through
// porchbot, and the public acme/site where mallory may write; it returns
// app/v1's commit.
func (w *world) privateVault() string {
	w.t.Helper()
	fg := w.svc.Embedded.Forge
	if _, err := fg.AddUser("mallory", "mallory-token"); err != nil {
		w.t.Fatal(err)
	}
	if _, err := fg.CreateRepo("acme", "vault", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin, "bob": forge.PermWrite}}); err != nil {
		w.t.Fatal(err)
	}
	w.seedReadme(vaultRepo)
	if _, err := fg.CreateRepo("acme", "site", forge.RepoOptions{
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin, "bob": forge.PermWrite, "mallory": forge.PermWrite}}); err != nil {
		w.t.Fatal(err)
	}
	w.seedReadme(siteRepo)
	w.publishVault("v1", "one")
	return w.tags(vaultRepo, "app/v")["app/v1"]
}

// publishVault publishes the next revision of app in acme/vault, its
// secret set to secret: a draft pushed by alice, approved by bob, merged.
func (w *world) publishVault(ws, secret string) {
	w.t.Helper()
	dir := w.clone("alice", vaultRepo)
	branch := packages.DraftBranch("app", ws)
	w.git(dir, "switch", "-q", "-c", branch)
	for p, c := range vaultApp(secret) {
		w.write(dir, p, c)
	}
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "app "+ws)
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	w.landDraft(vaultRepo, branch, "app "+ws)
}

// trackVault has user push to acme/site's main a package app whose
// Kptfile names acme/vault's app at v1 as its upstream (the content a stub:
// user need not have read the vault to write it), authored as user's
// account so that GitHub links the commit to them; it returns the commit.
func (w *world) trackVault(user, v1 string) string {
	w.t.Helper()
	return w.trackVaultIn(siteRepo, user, v1)
}

// trackVaultIn is trackVault in repo.
func (w *world) trackVaultIn(repo, user, v1 string) string {
	w.t.Helper()
	acct, _ := w.svc.Embedded.Forge.Account(user)
	dir := w.clone(user, repo)
	w.git(dir, "config", "user.email", acct.Email)
	url := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "vault"), ".git")
	lock := "    repo: " + url + "\n    directory: /app\n    ref: app/v1\n"
	w.write(dir, "app/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n"+lock+
		"  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n"+lock+"    commit: "+v1+"\n")
	w.write(dir, "app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: one\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Track the vault's app")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
	return w.git(dir, "rev-parse", "HEAD")
}

// vaultLeaked fails the test when acme/site's update branch of app holds
// content of the vault, or an update pull request of it exists.
func (w *world) vaultLeaked() {
	w.t.Helper()
	branch := packages.UpdateBranch("app")
	if sha := w.branchSHA(siteRepo, branch); sha != "" {
		cm, _ := w.file(siteRepo, sha, "app/cm.yaml")
		w.t.Fatalf("acme/vault's content reached the public acme/site on %s:\n%s", branch, cm)
	}
	if prs := w.updatePullsOf(siteRepo, branch); len(prs) != 0 {
		w.t.Fatalf("%d update pull requests of the vault's app in acme/site: %s", len(prs), prs[0].GetBody())
	}
}
