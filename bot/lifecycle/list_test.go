package lifecycle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// lsPull opens a pull request as alice, with labels.
func (h *harness) lsPull(t *testing.T, head string, labels ...string) int {
	t.Helper()
	ctx := context.Background()
	gh := h.User(forgetest.AliceToken)
	pr, _, err := gh.PullRequests.Create(ctx, "acme", "catalog", &github.NewPullRequest{Title: github.String("PR " + head),
		Head: github.String(head), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) > 0 {
		if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "catalog", pr.GetNumber(), labels); err != nil {
			t.Fatal(err)
		}
	}
	return pr.GetNumber()
}

func TestListPackagesDraftsAndPulls(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	alice, _ := h.Env.Forge.Account("alice")
	files := map[string][]byte{
		"basens/Kptfile":          []byte(basensKptfile),
		"network/upf/Kptfile":     []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n"),
		"network/upf/sub/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n"),
		"gone/Kptfile":            []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: gone\n"),
	}
	sha := h.Seed(t, files)
	h.ndTag(t, "acme/catalog", "basens/v1", sha)
	h.ndTag(t, "acme/catalog", "basens/v2", sha)
	h.ndTag(t, "acme/catalog", "gone/v1", sha)
	delete(files, "gone/Kptfile")
	head := h.Seed(t, files)
	for _, b := range []string{"porch/update/basens", "feature"} {
		if _, _, err := h.User(forgetest.AliceToken).Git.CreateRef(ctx, "acme", "catalog", &github.Reference{
			Ref: github.String("refs/heads/" + b), Object: &github.GitObject{SHA: github.String(head)}}); err != nil {
			t.Fatal(err)
		}
	}

	s := h.Open(t)
	for _, pkg := range []string{"fresh", "other"} {
		if _, err := proposals.NewDraft(ctx, s, proposals.NewDraftRequest{Package: pkg}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "basens"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Env.Forge.CommitFiles("acme/catalog", "porch/update/basens", map[string][]byte{"basens/Kptfile": []byte(basensKptfile + "# update\n"), "network/upf/Kptfile": files["network/upf/Kptfile"]}, "update", alice); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Env.Forge.CommitFiles("acme/catalog", "feature", map[string][]byte{"x": []byte("x\n"), "basens/Kptfile": []byte(basensKptfile)}, "feature", alice); err != nil {
		t.Fatal(err)
	}
	proposal := h.lsPull(t, "drafts/fresh/v1", "porch/proposed")
	plain := h.lsPull(t, "drafts/other/v1")
	update := h.lsPull(t, "porch/update/basens", "porch/update")
	h.lsPull(t, "feature")

	s = h.Open(t)
	before := h.Env.Forge.Stats().Snapshot()
	l, err := proposals.List(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	delta := forge.StatsDelta(before, h.Env.Forge.Stats().Snapshot())
	if forge.SumCounted(delta) != 1 || delta["GET /repos/{owner}/{repo}/pulls"] != 1 {
		t.Errorf("List made REST calls %v, want one pull request list", delta)
	}

	var pkgs []string
	for _, p := range l.Packages {
		pkgs = append(pkgs, p.Name)
	}
	if strings.Join(pkgs, ",") != "basens,gone,network/upf" {
		t.Fatalf("packages %v (subpackages are not packages of their own)", pkgs)
	}
	if b := l.Packages[0]; b.Latest != 2 || b.Revisions != 2 || b.Deleted() {
		t.Errorf("basens %+v", b)
	}
	if g := l.Packages[1]; !g.Deleted() || g.Latest != 1 {
		t.Errorf("gone %+v", g)
	}
	if u := l.Packages[2]; u.Latest != 0 || u.Dir != "network/upf" {
		t.Errorf("upf %+v", u)
	}
	var drafts []string
	for _, d := range l.Drafts {
		drafts = append(drafts, d.Branch)
		if d.Branch == "drafts/fresh/v1" && d.Pull != proposal || d.Branch == "drafts/other/v1" && d.Pull != plain {
			t.Errorf("draft %s pull %d", d.Branch, d.Pull)
		}
	}
	if strings.Join(drafts, ",") != "drafts/basens/v3,drafts/fresh/v1,drafts/other/v1" {
		t.Fatalf("drafts %v", drafts)
	}
	if len(l.Proposals) != 1 || l.Proposals[0].Number != proposal || l.Proposals[0].Package != "fresh" || l.Proposals[0].Workspace != "v1" {
		t.Errorf("proposals %+v", l.Proposals)
	}
	if len(l.Updates) != 1 || l.Updates[0].Number != update || l.Updates[0].Package != "basens" {
		t.Errorf("updates %+v", l.Updates)
	}
	if len(l.Deletions) != 0 || l.PullsTruncated {
		t.Errorf("deletions %+v truncated %v", l.Deletions, l.PullsTruncated)
	}
}
