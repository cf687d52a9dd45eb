package e2e

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

// TestFanoutDoesNotCarryPrivateIntoPublic: mallory, who may write the
// public acme/site but cannot read the private acme/vault of the same
// installation, pushes a Kptfile naming the vault's app as its upstream.
// The vault publishes app/v2: its fan-out opens nothing in acme/site (the
// author of the commit that set the upstream cannot read the vault), and
// the refusal is reported on that commit, where mallory sees it. bob, who
// can read the vault, tracks it in the private acme/ops: his package gets
// its update pull request (an allowed flow).
func TestFanoutDoesNotCarryPrivateIntoPublic(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	v1 := w.privateVault()
	set := w.trackVault("mallory", v1)
	if _, err := w.svc.Embedded.Forge.CreateRepo("acme", "ops", forge.RepoOptions{Private: true,
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin, "bob": forge.PermWrite}}); err != nil {
		t.Fatal(err)
	}
	w.seedReadme("acme/ops")
	w.trackVaultIn("acme/ops", "bob", v1)

	w.publishVault("v2", "the-secret")
	if revs := w.revisions(vaultRepo, "app"); len(revs) != 2 {
		t.Fatalf("the vault published %v", revs)
	}
	w.vaultLeaked()
	run := w.checkRunMaybe(siteRepo, set, "porchbot/flow")
	if run == nil || run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetSummary(), "@mallory cannot read acme/vault") {
		t.Fatalf("the refusal is not reported on mallory's commit: %+v", run)
	}
	if prs := w.updatePullsOf("acme/ops", "porch/update/app"); len(prs) != 1 {
		t.Fatalf("bob's package in acme/ops: %d update pull requests", len(prs))
	}
}

// TestUpgradeDoesNotCarryPrivateIntoPublic: in the public acme/site,
// /porch upgrade of a package tracking the private acme/vault is refused
// for mallory (she cannot read the vault) and for alice (she can, but the
// site has more readers than the vault), and so is alice's /porch clone of
// the vault's app, each told why; once the vault's configuration allows its
// content into wider repositories (flows.allowWiderReaders), alice's upgrade
// opens the update pull request and her clone its draft.
func TestUpgradeDoesNotCarryPrivateIntoPublic(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	v1 := w.privateVault()
	w.trackVault("mallory", v1)
	w.publishVault("v2", "the-secret")

	issue := w.createIssue("mallory", siteRepo, "Upgrade")
	c := w.comment("mallory", siteRepo, issue, "/porch upgrade app")
	w.settle()
	if reply := w.replyTo(siteRepo, issue, c).GetBody(); !strings.Contains(reply, "cannot read acme/vault") {
		t.Errorf("mallory's reply: %s", reply)
	}
	w.vaultLeaked()

	for _, cmd := range []string{"/porch upgrade app", "/porch clone acme/vault/app@v2 copy"} {
		c = w.comment("alice", siteRepo, issue, cmd)
		w.settle()
		if reply := w.replyTo(siteRepo, issue, c).GetBody(); !strings.Contains(reply, "acme/vault is private and acme/site is public") {
			t.Errorf("alice's %s: %s", cmd, reply)
		}
	}
	w.vaultLeaked()
	if sha := w.branchSHA(siteRepo, "drafts/copy/v1"); sha != "" {
		t.Fatal("alice's clone of the vault reached the public acme/site")
	}

	w.pushConfigTo(vaultRepo, "alice", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nflows:\n  allowWiderReaders: true\n", w.settle)
	c = w.comment("alice", siteRepo, issue, "/porch upgrade app")
	w.settle()
	prs := w.updatePullsOf(siteRepo, "porch/update/app")
	if len(prs) != 1 {
		t.Fatalf("allowed: %d update pull requests; reply: %s", len(prs), w.replyTo(siteRepo, issue, c).GetBody())
	}
	if cm, _ := w.file(siteRepo, prs[0].GetHead().GetSHA(), "app/cm.yaml"); !strings.Contains(cm, "the-secret") {
		t.Errorf("the allowed update brings:\n%s", cm)
	}
	c = w.comment("alice", siteRepo, issue, "/porch clone acme/vault/app@v2 copy")
	w.settle()
	if sha := w.branchSHA(siteRepo, "drafts/copy/v1"); sha == "" {
		t.Fatalf("allowed: no clone; reply: %s", w.replyTo(siteRepo, issue, c).GetBody())
	}
}
