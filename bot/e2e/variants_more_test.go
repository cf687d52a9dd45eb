package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/variants"
)

// kptGetUpf writes, as `kpt pkg get <catalog>.git/network/upf@network/upf/v1
// upf` leaves it, network/upf/v1 into repo's main: a package that exists
// without being a variant's.
func (w *world) kptGetUpf(repo string) {
	w.t.Helper()
	v1 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v1"]
	repoURL := strings.TrimSuffix(w.svc.Clients.URLs().GitURL("acme", "catalog"), ".git")
	dir := w.clone("alice", repo)
	for _, f := range []string{"deployment.yaml", "service.yaml"} {
		body, _ := w.file(upstreamRepo, upstreamPkg+"/v1", upstreamPkg+"/"+f)
		w.write(dir, "upf/"+f, body)
	}
	kf, _ := w.file(upstreamRepo, upstreamPkg+"/v1", upstreamPkg+"/Kptfile")
	lock := "  type: git\n  git:\n    repo: " + repoURL + "\n    directory: /network/upf\n    ref: network/upf/v1\n"
	w.write(dir, "upf/Kptfile", strings.Replace(kf, "info:", "upstream:\n"+lock+"  updateStrategy: resource-merge\nupstreamLock:\n"+lock+
		"    commit: "+v1+"\ninfo:", 1))
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "kpt pkg get the UPF")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()
}

// TestVariantAdoptionAndFailures: edge-5 holds its own upf (kpt pkg get):
// with adoptNone it is left alone and reported not owned; a listed
// repository where porchbot is not installed is reported failed; the other
// targets get their proposals all the same. With adoptExisting, edge-5
// gets an update pull request that takes the package over (ownership,
// mutations, the latest revision).
func TestVariantAdoptionAndFailures(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	w.newRepo("acme/edge-5")
	dir := w.clone("alice", "acme/edge-5")
	w.write(dir, injectorFile, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\ndata:\n  dnn: edge-5.internet\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "The site's UPF settings")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.kptGetUpf("acme/edge-5")

	listed := []string{"acme/edge-1", "acme/edge-5", "other/nowhere"}
	w.pushConfig(variantsConfig(listed, ""))
	w.checkVariantClone("acme/edge-1")
	w.checkVariantClone("acme/edge-3")
	if n := len(w.updatePullsOf("acme/edge-5", updateBranch)) + len(w.updatePullsOf("acme/edge-5", variantDraft)); n != 0 {
		t.Fatalf("edge-5 (adoptNone) got %d pull requests", n)
	}
	table := w.variantsTable()
	if row := w.tableRow(table, "acme/edge-5"); !strings.Contains(row, "not owned") || !strings.Contains(row, "`network/upf/v1`") {
		t.Fatalf("edge-5's row: %s", row)
	}
	if row := w.tableRow(table, "other/nowhere"); !strings.Contains(row, "failed") || !strings.Contains(row, "not a repository of the installation") {
		t.Fatalf("other/nowhere's row: %s", row)
	}

	w.pushConfig(variantsConfig(listed, "    adoptionPolicy: adoptExisting\n"))
	open := w.openPullsFrom("acme/edge-5", updateBranch)
	if len(open) != 1 {
		t.Fatalf("edge-5 (adoptExisting): %d open update pull requests", len(open))
	}
	if labels := w.labels("acme/edge-5", open[0].GetNumber()); !contains(labels, variants.Label) || !contains(labels, packages.LabelProposed) {
		t.Fatalf("edge-5#%d labels %v", open[0].GetNumber(), labels)
	}
	head := w.branchSHA("acme/edge-5", updateBranch)
	w.checkVariantPackage("acme/edge-5", head)
	if k := w.kptfileAt("acme/edge-5", head, variantPkg); k.UpstreamLock.Git.Ref != upstreamPkg+"/v2" {
		t.Fatalf("edge-5's adoption locks %s", k.UpstreamLock.Git.Ref)
	}
	// Merged, edge-5's upf is the variant's: in step.
	w.approve("bob", "acme/edge-5", open[0].GetNumber())
	w.settle()
	w.merge("alice", "acme/edge-5", open[0].GetNumber())
	w.settle()
	if row := w.tableRow(w.variantsTable(), "acme/edge-5"); !strings.Contains(row, "| in step |") {
		t.Fatalf("edge-5's row after the adoption merged: %s", row)
	}
}

// TestVariantReplicasOpenOnce: three replicas receive every webhook of the
// config push, each in its own order, all at once: one clone branch, one
// proposal with one requester record per target, and no comment.
func TestVariantReplicasOpenOnce(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	fl := newFleet(t, w, 2)
	w.pushConfigSettled(variantsConfig([]string{"acme/edge-1", "acme/edge-2"}, ""), fl.settle)
	for _, r := range []string{"acme/edge-1", "acme/edge-2", "acme/edge-3"} {
		if n := len(w.updatePullsOf(r, variantDraft)); n != 1 {
			t.Fatalf("%s: %d variant proposals from three replicas", r, n)
		}
		pr := w.checkVariantClone(r)
		if n := strings.Count(pr.GetBody(), "<!-- porchbot:requester-at "); n != 1 {
			t.Errorf("%s#%d: %d requester records", r, pr.GetNumber(), n)
		}
		if cs := w.botComments(r, pr.GetNumber()); len(cs) != 0 {
			t.Errorf("%s#%d: %d bot comments", r, pr.GetNumber(), len(cs))
		}
		// The clone commit and at most one render commit.
		dir := w.clone("alice", r)
		if n := len(strings.Fields(w.git(dir, "rev-list", "origin/main..origin/"+variantDraft))); n < 1 || n > 2 {
			t.Errorf("%s: %d commits on %s", r, n, variantDraft)
		}
	}
}

// TestVariantConvergesAfterDroppedWebhooks: the config push's webhooks are
// lost; the catalog's resync opens the proposals; a second resync changes
// nothing.
func TestVariantConvergesAfterDroppedWebhooks(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	w.svc.Embedded.Forge.SetFaults(forge.Faults{DropWebhooks: 1000})
	w.pushConfig(variantsConfig([]string{"acme/edge-1", "acme/edge-2"}, ""))
	w.svc.Embedded.Forge.SetFaults(forge.Faults{})
	three := []string{"acme/edge-1", "acme/edge-2", "acme/edge-3"}
	for _, r := range three {
		if n := len(w.updatePullsOf(r, variantDraft)); n != 0 {
			t.Fatalf("%s: a proposal without the webhook", r)
		}
	}
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	heads := map[string]string{}
	for _, r := range three {
		w.checkVariantClone(r)
		heads[r] = w.branchSHA(r, variantDraft)
	}
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	for _, r := range three {
		if n := len(w.updatePullsOf(r, variantDraft)); n != 1 {
			t.Fatalf("%s: %d proposals after two resyncs", r, n)
		}
		if got := w.branchSHA(r, variantDraft); got != heads[r] {
			t.Fatalf("%s: the second resync moved %s", r, variantDraft)
		}
	}
}

// TestVariantEntryChangeRefreshes: changing the entry (another label)
// while the clone proposals are open refreshes them (same pull requests,
// the draft rebuilt); once merged, the next change reaches every target as
// an update pull request of the same upstream revision, the mutations
// applied again.
func TestVariantEntryChangeRefreshes(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	listed := []string{"acme/edge-1", "acme/edge-2"}
	three := []string{"acme/edge-1", "acme/edge-2", "acme/edge-3"}
	w.pushConfig(variantsConfig(listed, ""))
	prs := map[string]int{}
	for _, r := range three {
		prs[r] = w.checkVariantClone(r).GetNumber()
	}
	w.pushConfig(strings.ReplaceAll(variantsConfig(listed, ""), "labels: {tier: edge}", "labels: {tier: edge, site: small}"))
	for _, r := range three {
		open := w.openPullsFrom(r, variantDraft)
		if len(open) != 1 || open[0].GetNumber() != prs[r] {
			t.Fatalf("%s: the entry change did not refresh #%d: %d open", r, prs[r], len(open))
		}
		if k := w.kptfileAt(r, w.branchSHA(r, variantDraft), variantPkg); k.Metadata.Labels["site"] != "small" {
			t.Fatalf("%s: the refreshed draft lacks the new label: %+v", r, k.Metadata.Labels)
		}
		w.checkVariantPackage(r, w.branchSHA(r, variantDraft))
		w.approve("bob", r, prs[r])
		w.settle()
		w.merge("alice", r, prs[r])
		w.settle()
	}
	w.pushConfig(strings.ReplaceAll(variantsConfig(listed, ""), "labels: {tier: edge}", "labels: {tier: edge, site: large}"))
	for _, r := range three {
		open := w.openPullsFrom(r, updateBranch)
		if len(open) != 1 {
			t.Fatalf("%s: %d open update pull requests after the entry changed", r, len(open))
		}
		head := w.branchSHA(r, updateBranch)
		k := w.kptfileAt(r, head, variantPkg)
		if k.Metadata.Labels["site"] != "large" || k.UpstreamLock.Git.Ref != upstreamPkg+"/v2" {
			t.Fatalf("%s: the update has labels %v and locks %s", r, k.Metadata.Labels, k.UpstreamLock.Git.Ref)
		}
		w.checkVariantPackage(r, head)
	}
	// Reconciling again changes nothing.
	heads := map[string]string{}
	for _, r := range three {
		heads[r] = w.branchSHA(r, updateBranch)
	}
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	for _, r := range three {
		if got := w.branchSHA(r, updateBranch); got != heads[r] || len(w.updatePullsOf(r, updateBranch)) != 1 {
			t.Fatalf("%s: the resync moved the update or opened another", r)
		}
	}
}

// TestVariantTargetsStayInTheInstallation: the App is also installed on
// another organisation, globex, whose repository has the topic edge and is
// named in the catalog's list. A catalog writes only to repositories of its
// own installation: globex/edge gets nothing, and /porch variants says why;
// acme's targets get their proposals.
func TestVariantTargetsStayInTheInstallation(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	fg := w.svc.Embedded.Forge
	if _, err := fg.AddOrg("globex", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.CreateRepo("globex", "edge", forge.RepoOptions{Topics: []string{"edge"},
		Collaborators: map[string]forge.Permission{"alice": forge.PermAdmin}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fg.Install("globex"); err != nil {
		t.Fatal(err)
	}
	w.seedReadme("globex/edge")
	dir := w.clone("alice", "globex/edge")
	w.write(dir, injectorFile, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\ndata:\n  dnn: globex.internet\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Site settings")
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	w.settle()

	w.pushConfig(variantsConfig([]string{"acme/edge-1", "globex/edge"}, ""))
	w.checkVariantClone("acme/edge-1")
	w.checkVariantClone("acme/edge-3")
	if w.branchSHA("globex/edge", variantDraft) != "" || len(w.updatePullsOf("globex/edge", variantDraft)) != 0 {
		t.Fatal("the catalog wrote to a repository of another installation")
	}
	if row := w.tableRow(w.variantsTable(), "globex/edge"); !strings.Contains(row, "failed") || !strings.Contains(row, "its own installation") {
		t.Fatalf("globex/edge's row: %s", row)
	}
}

// TestVariantDeclinedProposalStaysClosed: alice closes edge-1's clone
// proposal unmerged. Reconciles do not open it again (/porch variants
// says so) until the entry changes: then a new proposal comes.
func TestVariantDeclinedProposalStaysClosed(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	listed := []string{"acme/edge-1", "acme/edge-2"}
	w.pushConfig(variantsConfig(listed, ""))
	pr := w.checkVariantClone("acme/edge-1")
	owner, name := splitRepo("acme/edge-1")
	if _, _, err := w.client("alice").PullRequests.Edit(w.ctx, owner, name, pr.GetNumber(), &github.PullRequest{State: github.String("closed")}); err != nil {
		t.Fatal(err)
	}
	w.settle()
	for i := 0; i < 2; i++ {
		if _, err := w.resync(upstreamRepo); err != nil {
			t.Fatal(err)
		}
		w.settle()
	}
	if n := len(w.updatePullsOf("acme/edge-1", variantDraft)); n != 1 {
		t.Fatalf("edge-1: %d proposals after the declined one", n)
	}
	if row := w.tableRow(w.variantsTable(), "acme/edge-1"); !strings.Contains(row, "closed unmerged") {
		t.Fatalf("edge-1's row: %s", row)
	}
	w.pushConfig(strings.ReplaceAll(variantsConfig(listed, ""), "labels: {tier: edge}", "labels: {tier: core}"))
	open := w.openPullsFrom("acme/edge-1", variantDraft)
	if len(open) != 1 || open[0].GetNumber() == pr.GetNumber() {
		t.Fatalf("edge-1: the changed entry brought %d open proposals", len(open))
	}
}
