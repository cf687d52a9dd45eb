package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/variants"
)

// Variants (SPEC §7) end to end: acme/catalog's network/upf fanned out to
// edge repositories, two listed and the others by their topic "edge".

const (
	variantDraft  = "drafts/upf/variant"
	variantPkg    = "upf"
	injectorFile  = "site/upf.yaml"
	catalogConfig = ".github/porchbot.yaml"
)

// variantsConfig is the catalog's config with two variants entries of
// network/upf: the listed repositories (deletionPolicy delete), and every
// repository with the topic edge (deletionPolicy orphan). extra is added
// to the first entry (e.g. "paused: true").
func variantsConfig(listed []string, extra string) string {
	entry := func(targets, policy, more string) string {
		return `  - upstream: {package: network/upf, revision: latest}
    targets:
` + targets + `
    downstream: {package: upf}
    labels: {tier: edge}
    annotations: {example.com/fleet: edge}
    namespace: "{{ .Repository.Name }}"
    pipeline:
      mutators:
        - image: gcr.io/kpt-fn/set-annotations:v0.1.4
          configMap: {example.com/managed-by: variant}
    injectors: [` + injectorFile + `]
    deletionPolicy: ` + policy + `
` + more
	}
	return `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
packages:
  root: .
lifecycle:
  publishOn: merge
  releases: true
approvals:
  required: 1
  approvers: ["@acme/platform"]
variants:
` + entry("      repositories: ["+strings.Join(listed, ", ")+"]", "delete", extra) +
		entry("      repositorySelector: {topic: edge}", "orphan", "")
}

// variantWorld is the catalog with network/upf at v2 (a ConfigMap marked
// for injection added; its pipeline still sets namespace upf, which the
// variant's namespace, run last, overrides) and edge-1 …
// edge-4, each with its site's injector file; edge-3 has the topic edge.
func variantWorld(t *testing.T, extraArgs ...string) *world {
	t.Helper()
	w := newWorld(t, extraArgs...)
	seed := w.firstCommit(upstreamRepo)
	w.publishFound(upstreamRepo, seed, upstreamPkg)
	w.publishUpstream("inject", func(dir string) {
		w.write(dir, upstreamPkg+"/site.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\n  namespace: upf\n  annotations:\n"+
			"    kpt.dev/config-injection: \"true\"\ndata:\n  dnn: unset\n")
	})
	w.seedReadme("acme/edge-1")
	for _, r := range []string{"acme/edge-2", "acme/edge-3", "acme/edge-4"} {
		w.newRepo(r)
	}
	for _, r := range []string{"acme/edge-1", "acme/edge-2", "acme/edge-3", "acme/edge-4"} {
		dir := w.clone("alice", r)
		_, name := splitRepo(r)
		w.write(dir, injectorFile, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\ndata:\n  dnn: "+name+".internet\n")
		w.git(dir, "add", "-A")
		w.git(dir, "commit", "-q", "-m", "The site's UPF settings")
		w.git(dir, "push", "-q", "origin", "HEAD:main")
	}
	w.setTopics("acme/edge-3", "edge")
	w.settle()
	return w
}

// setTopics replaces a repository's topics as alice.
func (w *world) setTopics(repo string, topics ...string) {
	w.t.Helper()
	owner, name := splitRepo(repo)
	if _, _, err := w.client("alice").Repositories.ReplaceAllTopics(w.ctx, owner, name, append([]string{}, topics...)); err != nil {
		w.t.Fatal(err)
	}
}

// pushConfig pushes the catalog's config straight to main as alice.
func (w *world) pushConfig(content string) {
	w.t.Helper()
	w.pushConfigSettled(content, w.settle)
}

// pushConfigSettled is pushConfig with another settle (a fleet's).
func (w *world) pushConfigSettled(content string, settle func()) {
	w.t.Helper()
	w.pushConfigAs("alice", content, settle)
}

// pushConfigAs pushes the catalog's config straight to main as user, the
// commit authored with their account's e-mail address: GitHub links it to
// them, and the variants' flow rule (internal/flow) holds them to their
// access. It returns the commit.
func (w *world) pushConfigAs(user, content string, settle func()) string {
	w.t.Helper()
	return w.pushConfigTo(upstreamRepo, user, content, settle)
}

// pushConfigTo is pushConfigAs in repo.
func (w *world) pushConfigTo(repo, user, content string, settle func()) string {
	w.t.Helper()
	acct, _ := w.svc.Embedded.Forge.Account(user)
	dir := w.clone(user, repo)
	w.git(dir, "config", "user.email", acct.Email)
	w.write(dir, catalogConfig, content)
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-q", "-m", "Configuration of "+repo)
	w.git(dir, "push", "-q", "origin", "HEAD:main")
	settle()
	return w.git(dir, "rev-parse", "HEAD")
}

// variantsTable is the reply to /porch variants in the catalog.
func (w *world) variantsTable() string {
	w.t.Helper()
	issue := w.createIssue("alice", upstreamRepo, "Where are the variants?")
	c := w.comment("alice", upstreamRepo, issue, "/porch variants")
	w.settle()
	return w.replyTo(upstreamRepo, issue, c).GetBody()
}

// tableRow is the row of table naming target (fails when there is none).
func (w *world) tableRow(table, target string) string {
	w.t.Helper()
	for _, l := range strings.Split(table, "\n") {
		if strings.Contains(l, "`"+target+"`") {
			return l
		}
	}
	w.t.Fatalf("no row for %s in:\n%s", target, table)
	return ""
}

// variantPulls are the pull requests (any state) from branch in repo.
func (w *world) openPullsFrom(repo, branch string) []*github.PullRequest {
	w.t.Helper()
	var out []*github.PullRequest
	for _, pr := range w.updatePullsOf(repo, branch) {
		if pr.GetState() == "open" {
			out = append(out, pr)
		}
	}
	return out
}

// checkVariantPackage checks the variant's package of repo at ref: the
// labels, the annotations, the ownership, the pipeline (the entry's
// mutator first, the namespace last), the rendered namespace and the
// injected ConfigMap.
func (w *world) checkVariantPackage(repo, ref string) {
	w.t.Helper()
	_, name := splitRepo(repo)
	k := w.kptfileAt(repo, ref, variantPkg)
	if k.Metadata.Labels["tier"] != "edge" || k.Metadata.Annotations["example.com/fleet"] != "edge" {
		w.t.Fatalf("%s@%s: metadata %+v", repo, ref, k.Metadata)
	}
	own, err := variants.ParseOwnership(k.Metadata.Annotations[variants.OwnerAnnotation])
	if err != nil || own.Upstream != upstreamRepo || own.Package != upstreamPkg || k.Metadata.Annotations[variants.SpecAnnotation] == "" {
		w.t.Fatalf("%s@%s: ownership %+v %v", repo, ref, own, err)
	}
	muts := k.Pipeline.Mutators
	if len(muts) < 3 || muts[0].Name != variants.FunctionPrefix+"mutator.0" || muts[len(muts)-1].Name != variants.FunctionPrefix+"namespace" ||
		muts[len(muts)-1].ConfigMap["namespace"] != name {
		w.t.Fatalf("%s@%s: pipeline %+v", repo, ref, muts)
	}
	dep, _ := w.file(repo, ref, variantPkg+"/deployment.yaml")
	if !strings.Contains(dep, "namespace: "+name) || !strings.Contains(dep, "example.com/managed-by: variant") {
		w.t.Fatalf("%s@%s: the deployment is not rendered with the variant's namespace and mutator:\n%s", repo, ref, dep)
	}
	site, _ := w.file(repo, ref, variantPkg+"/site.yaml")
	if !strings.Contains(site, "dnn: "+name+".internet") || !strings.Contains(site, "porchbot.dev/injected-from: "+injectorFile) {
		w.t.Fatalf("%s@%s: the site ConfigMap is not injected:\n%s", repo, ref, site)
	}
}

// checkVariantClone checks repo's open clone proposal and returns it.
func (w *world) checkVariantClone(repo string) *github.PullRequest {
	w.t.Helper()
	prs := w.openPullsFrom(repo, variantDraft)
	if len(prs) != 1 {
		w.t.Fatalf("%s: %d open variant proposals, want 1", repo, len(prs))
	}
	pr := prs[0]
	labels := w.labels(repo, pr.GetNumber())
	if !contains(labels, packages.LabelProposed) || !contains(labels, variants.Label) {
		w.t.Fatalf("%s#%d labels %v", repo, pr.GetNumber(), labels)
	}
	for _, want := range []string{"variants[", upstreamPkg + "/v2", "Namespace `", "injected from `" + injectorFile + "`"} {
		if !strings.Contains(pr.GetBody(), want) {
			w.t.Fatalf("%s#%d body lacks %q:\n%s", repo, pr.GetNumber(), want, pr.GetBody())
		}
	}
	head := w.branchSHA(repo, variantDraft)
	w.checkVariantPackage(repo, head)
	k := w.kptfileAt(repo, head, variantPkg)
	v2 := w.tags(upstreamRepo, upstreamPkg+"/v")[upstreamPkg+"/v2"]
	if k.UpstreamLock == nil || k.UpstreamLock.Git == nil || k.UpstreamLock.Git.Ref != upstreamPkg+"/v2" || k.UpstreamLock.Git.Commit != v2 {
		w.t.Fatalf("%s: upstreamLock %+v, want %s/v2 at %s", repo, k.UpstreamLock, upstreamPkg, v2)
	}
	return pr
}

// TestVariants is §7 end to end: a variant over three repositories (two
// listed, one by topic) opens three clone proposals with the labels, the
// namespace, the pipeline and the injected resources; merged, each
// publishes upf/v1; an upstream publish opens three update pull requests
// that keep the mutations; a fourth repository given the topic gets its
// proposal on the next resync; a target removed from the list gets a
// deletion proposal (its open update closed), the topic removed an orphan
// proposal; a paused variant opens nothing new.
func TestVariants(t *testing.T) {
	t.Parallel()
	w := variantWorld(t)
	three := []string{"acme/edge-1", "acme/edge-2", "acme/edge-3"}
	w.pushConfig(variantsConfig([]string{"acme/edge-1", "acme/edge-2"}, ""))
	prs := map[string]*github.PullRequest{}
	for _, r := range three {
		prs[r] = w.checkVariantClone(r)
	}
	if n := len(w.openPullsFrom("acme/edge-4", variantDraft)); n != 0 {
		t.Fatalf("edge-4 (no topic) got %d proposals", n)
	}
	if got := testutil.ToFloat64(w.svc.Metrics.VariantTargets.WithLabelValues(string(variants.PROpen))); got != 3 {
		t.Errorf("porchbot_variant_targets{state=pull request open} = %v, want 3", got)
	}
	table := w.variantsTable()
	for _, r := range three {
		if row := w.tableRow(table, r); !strings.Contains(row, "pull request open") || !strings.Contains(row, "`upf`") {
			t.Errorf("/porch variants row of %s: %s", r, row)
		}
	}

	// Merged, each target publishes upf/v1 with the variant's content.
	for _, r := range three {
		w.approve("bob", r, prs[r].GetNumber())
		w.settle()
		w.merge("alice", r, prs[r].GetNumber())
		w.settle()
		if revs := w.revisions(r, variantPkg); len(revs) != 1 {
			t.Fatalf("%s: merging the variant's proposal published %v", r, revs)
		}
		w.checkVariantPackage(r, "upf/v1")
	}
	table = w.variantsTable()
	for _, r := range three {
		if row := w.tableRow(table, r); !strings.Contains(row, "| in step |") || !strings.Contains(row, "`network/upf/v2`") {
			t.Errorf("/porch variants row of %s after the merge: %s", r, row)
		}
	}

	// Upstream v3: three update pull requests keeping the mutations, and
	// no plain update beside them.
	v3 := w.publishUpstream("v3", upstreamV2(w))
	for _, r := range three {
		open := w.openPullsFrom(r, updateBranch)
		if len(open) != 1 {
			t.Fatalf("%s: %d open update pull requests after %s", r, len(open), v3)
		}
		labels := w.labels(r, open[0].GetNumber())
		if !contains(labels, variants.Label) || !contains(labels, packages.LabelProposed) {
			t.Fatalf("%s#%d labels %v", r, open[0].GetNumber(), labels)
		}
		if b := open[0].GetBody(); !strings.Contains(b, "### Variant") || !strings.Contains(b, v3) {
			t.Fatalf("%s#%d body:\n%s", r, open[0].GetNumber(), b)
		}
		head := w.branchSHA(r, updateBranch)
		w.checkVariantPackage(r, head)
		if dep, _ := w.file(r, head, variantPkg+"/deployment.yaml"); !strings.Contains(dep, "upf:1.5.0") {
			t.Fatalf("%s: the update lacks the upstream's image:\n%s", r, dep)
		}
		if k := w.kptfileAt(r, head, variantPkg); k.UpstreamLock.Git.Ref != v3 {
			t.Fatalf("%s: the update locks %s", r, k.UpstreamLock.Git.Ref)
		}
	}

	// edge-4 gets the topic: its proposal comes with the next resync.
	w.setTopics("acme/edge-4", "edge", "site")
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	pr4 := w.openPullsFrom("acme/edge-4", variantDraft)
	if len(pr4) != 1 {
		t.Fatalf("edge-4: %d proposals after the resync", len(pr4))
	}
	if !strings.Contains(pr4[0].GetBody(), upstreamPkg+"/v3") {
		t.Fatalf("edge-4's clone is not of the latest revision:\n%s", pr4[0].GetBody())
	}

	// edge-2 leaves the list (deletionPolicy delete): a deletion proposal,
	// its open update closed; edge-3 loses the topic (orphan): a proposal
	// removing the ownership annotations.
	update2 := w.openPullsFrom("acme/edge-2", updateBranch)[0]
	w.setTopics("acme/edge-3")
	w.pushConfig(variantsConfig([]string{"acme/edge-1"}, ""))
	del := w.openPullsFrom("acme/edge-2", "drafts/upf/delete")
	if len(del) != 1 {
		t.Fatalf("edge-2: %d deletion proposals", len(del))
	}
	if labels := w.labels("acme/edge-2", del[0].GetNumber()); !contains(labels, packages.LabelDeletionProposed) || !contains(labels, variants.Label) {
		t.Fatalf("edge-2 deletion labels %v", labels)
	}
	if got := w.pull("acme/edge-2", update2.GetNumber()); got.GetState() != "closed" {
		t.Fatalf("edge-2's update #%d is %s after the target was removed", update2.GetNumber(), got.GetState())
	}
	orphan := w.openPullsFrom("acme/edge-3", "drafts/upf/variant-orphan")
	if len(orphan) != 1 {
		t.Fatalf("edge-3: %d orphan proposals", len(orphan))
	}
	k := w.kptfileAt("acme/edge-3", w.branchSHA("acme/edge-3", "drafts/upf/variant-orphan"), variantPkg)
	if _, owned := k.Metadata.Annotations[variants.OwnerAnnotation]; owned || k.Metadata.Labels["tier"] != "edge" {
		t.Fatalf("edge-3's orphan proposal: metadata %+v", k.Metadata)
	}
	if n := len(w.openPullsFrom("acme/edge-1", updateBranch)); n != 1 {
		t.Fatalf("edge-1: %d open updates after edge-2 left", n)
	}

	// Paused: the next publish refreshes nothing of the paused entry.
	w.pushConfig(variantsConfig([]string{"acme/edge-1"}, "    paused: true\n"))
	before := w.branchSHA("acme/edge-1", updateBranch)
	v4 := w.publishUpstream("v4", upstreamV3(w))
	if got := w.branchSHA("acme/edge-1", updateBranch); got != before {
		t.Fatalf("a paused variant refreshed edge-1's update to %s", v4)
	}
	if _, err := w.resync(upstreamRepo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	if got := w.branchSHA("acme/edge-1", updateBranch); got != before {
		t.Fatalf("the resync refreshed a paused variant's update")
	}
	if row := w.tableRow(w.variantsTable(), "acme/edge-1"); !strings.Contains(row, "| paused |") {
		t.Fatalf("/porch variants row of the paused edge-1: %s", row)
	}
}
