package e2e

import (
	"strings"
	"testing"
)

// TestApprovalPolicy: an approval counts for the package content it was
// given on. A push that changes the rendered package makes it stale; a push
// outside the package keeps it; the author's own /porch approve never
// counts; an unmet readiness gate of the Kptfile fails the check naming it.
func TestApprovalPolicy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	const branch = "drafts/network/upf/scale"

	// A rendered draft (namespace and labels as the pipeline sets them),
	// proposed by alice and approved by bob.
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	deployment := readFile(t, dir, "network/upf/deployment.yaml")
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(deployment, "replicas: 1", "replicas: 3", 1))
	w.git(dir, "commit", "-q", "-am", "Three UPF replicas")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	pr := w.openPull("alice", repo, branch, "Scale the UPF")
	w.settle()
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	head := w.pull(repo, pr.GetNumber()).GetHead().GetSHA()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval after bob's review: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	// alice changes the package: bob's approval is stale.
	push := func(msg string) string {
		t.Helper()
		w.git(dir, "commit", "-q", "-am", msg)
		w.git(dir, "push", "-q", "origin", "HEAD")
		w.settle()
		head := w.pull(repo, pr.GetNumber()).GetHead().GetSHA()
		if pushed := w.git(dir, "rev-parse", "HEAD"); head != pushed {
			t.Fatalf("the proposal's head %s is not alice's push %s (an unexpected Render commit?)", head, pushed)
		}
		return head
	}
	w.write(dir, "network/upf/deployment.yaml", strings.Replace(deployment, "replicas: 1", "replicas: 5", 1))
	head = push("Five UPF replicas")
	run := w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "stale") {
		t.Fatalf("approval after a content change: %s %s\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// alice approves her own proposal: it does not count.
	w.comment("alice", repo, pr.GetNumber(), "/porch approve")
	w.settle()
	run = w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() == "success" || !strings.Contains(run.GetOutput().GetSummary(), "self-approval") {
		t.Fatalf("approval after alice's own /porch approve: %s %s\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// bob approves again; a push outside the package keeps his approval.
	w.comment("bob", repo, pr.GetNumber(), "/porch approve")
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval after bob's /porch approve: %s %s", run.GetConclusion(), run.GetOutput().GetSummary())
	}
	w.write(dir, "README.md", readFile(t, dir, "README.md")+"\nThe UPF runs five replicas at every edge site.\n")
	head = push("Say so in the README")
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval after a README-only push: %s %s\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// A readiness gate in the Kptfile whose condition is not there: the
	// check fails naming it, whatever the approvals.
	const gate = "acme.dev/LoadTested"
	kf := readFile(t, dir, "network/upf/Kptfile")
	gated := strings.Replace(kf, "  keywords: [5g, network]\n", "  keywords: [5g, network]\n  readinessGates:\n    - conditionType: "+gate+"\n", 1)
	if gated == kf {
		t.Fatal("the seed Kptfile changed: cannot add the readiness gate")
	}
	w.write(dir, "network/upf/Kptfile", gated)
	head = push("Gate the UPF on its load test")
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	run = w.checkRun(repo, head, "porchbot/approval")
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), gate) {
		t.Fatalf("approval with an unmet gate: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}

	// The condition set True: ready, and bob's approval of that content counts.
	w.write(dir, "network/upf/Kptfile", gated+"status:\n  conditions:\n    - type: "+gate+"\n      status: \"True\"\n      reason: Passed\n")
	head = push("The UPF passed its load test")
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	if run := w.checkRun(repo, head, "porchbot/approval"); run.GetConclusion() != "success" {
		t.Fatalf("approval with the gate met: %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
}
