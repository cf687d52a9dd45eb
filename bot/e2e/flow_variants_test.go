package e2e

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
)

// catalogVariants is the catalog's seeded configuration with variants
// entries of network/upf (each an entry's targets, as YAML).
func catalogVariants(targets ...string) string {
	out := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\npackages:\n  root: .\nlifecycle:\n  publishOn: merge\n  releases: true\n" +
		"approvals:\n  required: 1\n  approvers: [\"@acme/platform\"]\nvariants:\n"
	for _, t := range targets {
		out += "  - upstream: {package: network/upf, revision: latest}\n    targets:\n      " + t + "\n    downstream: {package: upf}\n"
	}
	return out
}

// TestVariantsCarryOnlyWhatTheEntryAuthorCould: in the public acme/catalog,
// alice adds a variant of network/upf to the repositories of topic edge,
// among them the private acme/hidden she administers: its clone proposal
// is opened, and `/porch variants` in the public catalog does not name
// acme/hidden. Then mallory, a write collaborator of the catalog who cannot
// read the private acme/secret-site, adds an entry targeting it: nothing is
// opened there, and the refusal is a failed porchbot/flow check run on her
// configuration commit.
func TestVariantsCarryOnlyWhatTheEntryAuthorCould(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fg := w.svc.Embedded.Forge
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	if _, err := fg.AddUser("mallory", "mallory-token"); err != nil {
		t.Fatal(err)
	}
	if err := fg.SetCollaborator(upstreamRepo, "mallory", forge.PermWrite); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hidden", "secret-site"} {
		if _, err := fg.CreateRepo("acme", name, forge.RepoOptions{Private: true,
			Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin, "bob": forge.PermWrite}}); err != nil {
			t.Fatal(err)
		}
		w.seedReadme("acme/" + name)
	}
	w.setTopics("acme/hidden", "edge")
	w.settle()

	topic := "repositorySelector: {topic: edge}"
	w.pushConfigAs("alice", catalogVariants(topic), w.settle)
	if n := len(w.openPullsFrom("acme/hidden", variantDraft)); n != 1 {
		t.Fatalf("alice's entry: %d clone proposals in acme/hidden", n)
	}
	table := w.variantsTable()
	if strings.Contains(table, "acme/hidden") || !strings.Contains(table, "a repository you may not see") {
		t.Errorf("/porch variants in the public catalog names the private target:\n%s", table)
	}

	set := w.pushConfigAs("mallory", catalogVariants(topic, "repositories: [acme/secret-site]"), w.settle)
	if n := len(w.openPullsFrom("acme/secret-site", variantDraft)); n != 0 {
		t.Fatalf("mallory's entry opened %d clone proposals in acme/secret-site", n)
	}
	if sha := w.branchSHA("acme/secret-site", variantDraft); sha != "" {
		t.Fatalf("mallory's entry pushed %s to acme/secret-site", variantDraft)
	}
	run := w.checkRunMaybe(upstreamRepo, set, "porchbot/flow")
	if run == nil || run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetSummary(), "@mallory cannot write acme/secret-site") {
		t.Fatalf("the refusal is not reported on mallory's commit: %+v", run)
	}
	row := w.tableRow(w.variantsTable(), "acme/secret-site")
	if !strings.Contains(row, "cannot write") {
		t.Errorf("/porch variants row of acme/secret-site: %s", row)
	}
	if n := len(w.openPullsFrom("acme/hidden", variantDraft)); n != 1 {
		t.Errorf("alice's entry, unchanged: %d clone proposals in acme/hidden", n)
	}
}
