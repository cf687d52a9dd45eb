package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// The organisation's .github repository holds a porchbot.yaml that the
// catalog's configuration extends: its rules are in force (two
// approvals), a proposal changing the catalog's file is checked with the
// preset read from there, and a configuration that extends a preset
// porchbot cannot read is refused with the reason at its line.
func TestConfigExtendsTheOrganisationPreset(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.orgPreset("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 2\n  approvers: [\"@acme/platform\"]\n")

	cat := w.clone("alice", "acme/catalog")
	w.write(cat, ".github/porchbot.yaml", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nextends: [org]\n")
	w.git(cat, "add", "-A")
	w.git(cat, "commit", "-qm", "Extend the organisation's preset")
	w.git(cat, "push", "-q", "origin", "HEAD")
	w.settle()

	head := w.pushSixtyPods("drafts/basens/quota")
	pr := w.openPull("alice", "acme/catalog", "drafts/basens/quota", "Sixty pods")
	w.settle()
	w.approve("bob", "acme/catalog", pr.GetNumber())
	w.settle()
	run := w.checkRun("acme/catalog", w.branchSHA("acme/catalog", "drafts/basens/quota"), "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetTitle()+run.GetOutput().GetSummary(), "1 of 2") {
		t.Errorf("with the organisation's two approvals, after one: %s %q\n%s (head %s)", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary(), head)
	}

	// A proposal that extends a preset the organisation does not have.
	w.git(cat, "switch", "-q", "-c", "config-edge")
	w.write(cat, ".github/porchbot.yaml", "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nextends: [org:edge]\n")
	w.git(cat, "commit", "-qam", "Extend org:edge")
	w.git(cat, "push", "-q", "origin", "HEAD")
	w.openPull("alice", "acme/catalog", "config-edge", "org:edge")
	w.settle()
	check := w.checkRun("acme/catalog", w.branchSHA("acme/catalog", "config-edge"), "porchbot/config")
	if check.GetConclusion() != "failure" || !strings.Contains(strings.ReplaceAll(check.GetOutput().GetSummary(), `\`, ""), `"org:edge": acme/.github: porchbot/edge.yaml has no such file`) {
		t.Errorf("the config check of a file extending a missing preset: %s\n%s", check.GetConclusion(), check.GetOutput().GetSummary())
	}
}

// orgPreset creates acme's .github repository with porchbot.yaml as its
// content, the organisation's configuration repositories extend.
func (w *world) orgPreset(content string) {
	w.t.Helper()
	if _, _, err := w.client("alice").Repositories.Create(w.ctx, "acme", &github.Repository{Name: github.String(".github"), AutoInit: github.Bool(true)}); err != nil {
		w.t.Fatal(err)
	}
	org := w.clone("alice", "acme/.github")
	w.write(org, "porchbot.yaml", content)
	w.git(org, "add", "-A")
	w.git(org, "commit", "-qm", "The organisation's porchbot preset")
	w.git(org, "push", "-q", "origin", "HEAD")
}
