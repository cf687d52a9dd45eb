package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
)

// TestResyncRepairsLostWebhooks: the forge loses every third webhook while
// alice and bob draft, propose, approve and merge. One resync afterwards
// publishes every landing in history order (one tag each, one release
// each), renders every draft head that lacks porchbot/render and evaluates
// every open proposal.
func TestResyncRepairsLostWebhooks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	fg := w.svc.Embedded.Forge
	seed := w.firstCommit(repo)
	w.publishFound(repo, seed, "network/upf", "basens")
	fg.SetFaults(forge.Faults{DropWebhookEvery: 3})

	// pushDraft branches from main, edits one file and pushes.
	pushDraft := func(branch, file, old, new string) string {
		t.Helper()
		dir := w.clone("alice", repo)
		w.git(dir, "switch", "-q", "-c", branch)
		content := readFile(t, dir, file)
		if !strings.Contains(content, old) {
			t.Fatalf("%s has no %q", file, old)
		}
		w.write(dir, file, strings.Replace(content, old, new, 1))
		w.git(dir, "commit", "-q", "-am", "Change "+file)
		w.git(dir, "push", "-q", "origin", "HEAD")
		w.settle()
		return w.git(dir, "rev-parse", "HEAD")
	}
	land := func(branch, title string) string { return w.land(repo, branch, title) }

	// Every third webhook lost.
	pushDraft("drafts/network/upf/three", "network/upf/deployment.yaml", "replicas: 1", "replicas: 3")
	m1 := land("drafts/network/upf/three", "Three UPF replicas")
	pushDraft("drafts/network/upf/five", "network/upf/deployment.yaml", "replicas: 3", "replicas: 5")
	m2 := land("drafts/network/upf/five", "Five UPF replicas")
	// A draft that needs rendering (its namespace was dropped).
	pushDraft("drafts/network/upf/image", "network/upf/deployment.yaml", "  namespace: upf\n", "")
	dropped := 0
	for _, d := range fg.Deliveries() {
		if d.Dropped {
			dropped++
		}
	}
	if dropped == 0 {
		t.Fatal("no webhook was lost")
	}

	// Then every webhook lost: a landing of basens, an open proposal and a
	// draft nobody proposed, none of which porchbot hears of.
	fg.SetFaults(forge.Faults{DropWebhooks: 1 << 30})
	pushDraft("drafts/basens/quota", "basens/namespace.yaml", `pods: "50"`, `pods: "60"`)
	mb := land("drafts/basens/quota", "Sixty pods")
	pushDraft("drafts/basens/cpu", "basens/namespace.yaml", `requests.cpu: "8"`, `requests.cpu: "16"`)
	open := w.openPull("alice", repo, "drafts/basens/cpu", "Sixteen CPUs")
	w.settle()
	ports := pushDraft("drafts/network/upf/ports", "network/upf/service.yaml", "port: 8805", "port: 8806")
	if got := w.tags(repo, "basens/"); len(got) != 1 { // the found state, v1
		t.Fatalf("basens tagged %v without a webhook", got)
	}
	if run := w.checkRunMaybe(repo, ports, "porchbot/render"); run != nil {
		t.Fatal("a render check without a webhook")
	}
	if labels := w.labels(repo, open.GetNumber()); len(labels) != 0 {
		t.Fatalf("#%d labelled %v without a webhook", open.GetNumber(), labels)
	}
	t.Logf("%d of %d webhooks lost; before the resync: upf %v", len(fg.Deliveries())-countDelivered(fg),
		len(fg.Deliveries()), w.tags(repo, "network/upf/"))

	// The resync, as the periodic loop runs it, with the webhooks back.
	fg.SetFaults(forge.Faults{})
	rep, err := w.resync(repo)
	if err != nil {
		t.Fatal(err)
	}
	w.settle()
	t.Logf("resync: published %d, releases repaired %v, drafts rendered %v, proposals %v",
		len(rep.Published), rep.ReleasesRepaired, rep.DraftsRendered, rep.ProposalsEvaluated)
	if !contains(rep.DraftsRendered, "drafts/network/upf/ports") || !slices.Contains(rep.ProposalsEvaluated, open.GetNumber()) {
		t.Fatalf("the resync did not render the unheard draft or evaluate the unheard proposal: %+v", rep)
	}

	// Every landing published, in history order, once.
	for pkg, want := range map[string]map[string]string{
		"network/upf": {"network/upf/v1": seed, "network/upf/v2": m1, "network/upf/v3": m2},
		"basens":      {"basens/v1": seed, "basens/v2": mb},
	} {
		got := w.tags(repo, pkg+"/")
		if len(got) != len(want) {
			t.Fatalf("%s tags %v, want %v", pkg, got, want)
		}
		for tag, sha := range want {
			if got[tag] != sha {
				t.Fatalf("%s on %s, want %s", tag, got[tag], sha)
			}
		}
	}
	rels := w.releases(repo)
	for _, tag := range []string{"basens/v1", "basens/v2", "network/upf/v1", "network/upf/v2", "network/upf/v3"} {
		n := 0
		for _, r := range rels {
			if r == tag {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d releases of %s (releases %v)", n, tag, rels)
		}
	}

	// Every draft still in progress has porchbot/render on its head; the
	// one without its namespace got it back in a Render commit.
	owner, name := splitRepo(repo)
	refs, _, err := w.client("alice").Git.ListMatchingRefs(w.ctx, owner, name,
		&github.ReferenceListOptions{Ref: "heads/drafts/", ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	inProgress := map[string]bool{"drafts/network/upf/image": true, "drafts/basens/cpu": true, "drafts/network/upf/ports": true}
	found := 0
	for _, ref := range refs {
		branch := strings.TrimPrefix(ref.GetRef(), "refs/heads/")
		if !inProgress[branch] {
			continue
		}
		found++
		head := ref.GetObject().GetSHA()
		if run := w.checkRunMaybe(repo, head, "porchbot/render"); run == nil || run.GetConclusion() != "success" {
			t.Errorf("%s at %s: render check %v", branch, head, run)
		}
	}
	if found != len(inProgress) {
		t.Fatalf("%d of %d drafts in progress found", found, len(inProgress))
	}
	image := w.branchSHA(repo, "drafts/network/upf/image")
	if dep, _ := w.file(repo, image, "network/upf/deployment.yaml"); !strings.Contains(dep, "namespace: upf") {
		t.Errorf("drafts/network/upf/image was not rendered:\n%s", dep)
	}

	// Every open proposal is labelled and has porchbot/approval on its head.
	pr := w.pull(repo, open.GetNumber())
	if !contains(w.labels(repo, pr.GetNumber()), packages.LabelProposed) {
		t.Errorf("#%d labels %v", pr.GetNumber(), w.labels(repo, pr.GetNumber()))
	}
	if run := w.checkRunMaybe(repo, pr.GetHead().GetSHA(), "porchbot/approval"); run == nil {
		t.Errorf("#%d has no approval check on %s", pr.GetNumber(), pr.GetHead().GetSHA())
	}
}

// countDelivered counts the deliveries the bot received.
func countDelivered(fg *forge.Forge) int {
	n := 0
	for _, d := range fg.Deliveries() {
		if !d.Dropped {
			n++
		}
	}
	return n
}
