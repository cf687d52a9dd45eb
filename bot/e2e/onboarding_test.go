package e2e

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/config"
)

const onboardRepo = "acme/edge-1"

// basensKptfile is a package without a pipeline: rendering it passes.
const basensKptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"

// seedEdge puts a workflow and a package on acme/edge-1's main, and a draft
// of the package, as a team that starts with porchbot has them; it
// returns the clone.
func seedEdge(w *world) string {
	w.t.Helper()
	dir := w.clone("alice", onboardRepo)
	w.write(dir, ".github/workflows/ci.yaml", "on: push\njobs: {}\n")
	w.write(dir, "basens/Kptfile", basensKptfile)
	w.write(dir, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n")
	w.git(dir, "add", "-A")
	w.git(dir, "commit", "-qm", "basens")
	w.git(dir, "switch", "-q", "-c", "drafts/basens/w1")
	w.write(dir, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n  labels:\n    team: edge\n")
	w.git(dir, "commit", "-qam", "label")
	// One push of both: the first event porchbot hears finds both.
	w.git(dir, "push", "-q", "origin", "HEAD~1:refs/heads/main", "HEAD:refs/heads/drafts/basens/w1")
	w.git(dir, "branch", "-q", "--set-upstream-to", "origin/drafts/basens/w1")
	w.settle()
	return dir
}

// With onboarding required (the default), a repository without
// .github/porchbot.yaml gets one "Configure porchbot" pull request, which
// adds the defaults beside what .github holds and says what porchbot
// found; nothing else happens there (no render, a command is answered
// with what to do) until it is merged, and later events open no second
// one and cost no call. Merged, porchbot is on.
func TestOnboardingRequired(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "--onboarding", "required")
	dir := seedEdge(w)

	pr := w.pullFrom(onboardRepo, "porchbot/configure")
	if pr == nil {
		t.Fatal("no onboarding pull request in a repository without .github/porchbot.yaml")
	}
	if pr.GetTitle() != "Configure porchbot" || pr.GetUser().GetLogin() != botLogin || pr.GetBase().GetRef() != "main" {
		t.Errorf("onboarding pull request: %q by %s into %s", pr.GetTitle(), pr.GetUser().GetLogin(), pr.GetBase().GetRef())
	}
	for _, want := range []string{"1 package on `main`: `basens`.", "1 draft: `drafts/basens/w1`.", "**Merge**", "**Close**"} {
		if !strings.Contains(pr.GetBody(), want) {
			t.Errorf("the onboarding body lacks %q:\n%s", want, pr.GetBody())
		}
	}
	text, ok := w.file(onboardRepo, "porchbot/configure", ".github/porchbot.yaml")
	if !ok {
		t.Fatal("the onboarding branch has no .github/porchbot.yaml")
	}
	limits := w.svc.App.Opener.Limits
	if got, err := config.Parse(config.Path, []byte(text), limits); err != nil || !reflect.DeepEqual(got, config.DefaultFor(limits)) {
		t.Errorf("the proposed configuration is not the defaults (%v):\n%s", err, text)
	}
	if _, ok := w.file(onboardRepo, "porchbot/configure", ".github/workflows/ci.yaml"); !ok {
		t.Error("the onboarding commit dropped .github/workflows/ci.yaml")
	}
	// The proposed file is judged, as any edit of the configuration is.
	if run := w.checkRunMaybe(onboardRepo, "porchbot/configure", "porchbot/config"); run == nil || run.GetConclusion() != "success" {
		t.Errorf("the onboarding pull request's porchbot/config check: %v", run)
	}
	if run := w.checkRunMaybe(onboardRepo, "drafts/basens/w1", "porchbot/render"); run != nil {
		t.Errorf("porchbot rendered a draft in a repository it is not set up in: %s", run.GetConclusion())
	}

	issue := w.createIssue("alice", onboardRepo, "Deploy")
	c := w.comment("alice", onboardRepo, issue, "/porch list")
	w.settle()
	if body := w.replyTo(onboardRepo, issue, c).GetBody(); !strings.Contains(body, "porchbot is not set up in acme/edge-1 yet") ||
		!strings.Contains(body, "Configure porchbot") {
		t.Errorf("a command before onboarding:\n%s", body)
	}

	// Another event: no second pull request, and the onboarding check is
	// free while its branch is there.
	before := w.stats()
	w.write(dir, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n  labels:\n    team: edge2\n")
	w.git(dir, "commit", "-qam", "label again")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	for _, ep := range []string{"GET /repos/{owner}/{repo}/pulls", "POST /repos/{owner}/{repo}/pulls"} {
		if n := callsSince(w, before, ep); n != 0 {
			t.Errorf("an event in a repository being onboarded made %d %s calls", n, ep)
		}
	}
	owner, name := splitRepo(onboardRepo)
	prs, _, err := w.client("alice").PullRequests.List(w.ctx, owner, name, &github.PullRequestListOptions{State: "all"})
	if err != nil || len(prs) != 1 {
		t.Fatalf("pull requests after a second event: %d %v, want the onboarding one", len(prs), err)
	}

	// Merged: porchbot is on.
	w.merge("alice", onboardRepo, pr.GetNumber())
	w.settle()
	w.write(dir, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n  labels:\n    team: edge3\n")
	w.git(dir, "commit", "-qam", "label once more")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	if run := w.checkRunMaybe(onboardRepo, "drafts/basens/w1", "porchbot/render"); run == nil || run.GetConclusion() != "success" {
		t.Errorf("after the onboarding merged, the draft's render: %v", run)
	}
}

// Closing the onboarding pull request leaves the repository alone: no
// second one, not even when its branch is deleted.
func TestOnboardingClosedLeavesTheRepositoryAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "--onboarding", "required")
	dir := seedEdge(w)
	pr := w.pullFrom(onboardRepo, "porchbot/configure")
	if pr == nil {
		t.Fatal("no onboarding pull request")
	}
	owner, name := splitRepo(onboardRepo)
	if _, _, err := w.client("alice").PullRequests.Edit(w.ctx, owner, name, pr.GetNumber(), &github.PullRequest{State: github.String("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.client("alice").Git.DeleteRef(w.ctx, owner, name, "heads/porchbot/configure"); err != nil {
		t.Fatal(err)
	}
	w.settle()
	w.write(dir, "basens/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n  labels:\n    team: other\n")
	w.git(dir, "commit", "-qam", "label again")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	if sha := w.branchSHA(onboardRepo, "porchbot/configure"); sha != "" {
		t.Errorf("porchbot pushed its onboarding branch again after the pull request was closed (%s)", sha)
	}
	prs, _, err := w.client("alice").PullRequests.List(w.ctx, owner, name, &github.PullRequestListOptions{State: "all"})
	if err != nil || len(prs) != 1 {
		t.Fatalf("pull requests after closing the onboarding one: %d %v, want it alone", len(prs), err)
	}
	if run := w.checkRunMaybe(onboardRepo, "drafts/basens/w1", "porchbot/render"); run != nil {
		t.Error("porchbot rendered a draft in a repository whose onboarding was closed")
	}
}

// With onboarding optional, the pull request is opened and the defaults
// apply meanwhile; where the organisation has its porchbot.yaml, the
// proposed file extends it.
func TestOnboardingOptional(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "--onboarding", "optional")
	w.orgPreset("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n")
	w.settle()
	seedEdge(w)
	if w.pullFrom(onboardRepo, "porchbot/configure") == nil {
		t.Fatal("no onboarding pull request with onboarding optional")
	}
	if w.pullFrom("acme/.github", "porchbot/configure") != nil {
		t.Error("the organisation's .github repository got an onboarding pull request")
	}
	if text, _ := w.file(onboardRepo, "porchbot/configure", ".github/porchbot.yaml"); !strings.Contains(text, "extends: [org]") {
		t.Errorf("the onboarding file does not extend the organisation's porchbot.yaml:\n%s", text)
	}
	if run := w.checkRunMaybe(onboardRepo, "drafts/basens/w1", "porchbot/render"); run == nil || run.GetConclusion() != "success" {
		t.Errorf("with onboarding optional, the draft's render: %v", run)
	}
}
