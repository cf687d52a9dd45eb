package lifecycle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/packages"
)

func TestDeletionProposalMergedKeepsTags(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	c1 := f.commit("main", "", func(files map[string][]byte) {
		files["old/Kptfile"] = pubKptfile("old")
		files["old/sub/Kptfile"] = pubKptfile("sub")
		files["old/cm.yaml"] = pubConfigMap("old", "cfg", "1")
		files["keep/Kptfile"] = pubKptfile("keep")
	})
	s := f.h.Open(t)
	if got := publishLanding(t, s, plumbing.NewHash(c1), nil).Tags(); strings.Join(got, ",") != "keep/v1,old/v1" {
		t.Fatalf("seed published %v", got)
	}

	api := proposals.NewDeletionAPI(s.Hub)
	var err error
	calls := f.calls(func() {
		_, err = proposals.ProposeDeletion(f.ctx, s, api, "old", "alice")
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("deletion proposal: %d REST calls %v", forge.SumCounted(calls), calls)
	if n := forge.SumCounted(calls); n != 3 { // create, requester record, label
		t.Fatalf("ProposeDeletion made %d REST calls: %v", n, calls)
	}
	prs, _, err := f.alice.PullRequests.List(f.ctx, pubOwner, pubRepo, nil)
	if err != nil || len(prs) != 1 {
		t.Fatalf("pull requests %v %v", prs, err)
	}
	pr := prs[0]
	if pr.GetHead().GetRef() != "drafts/old/delete" || pr.GetBase().GetRef() != "main" ||
		!strings.Contains(pr.GetBody(), "@alice") || !hasLabelNamed(pr, packages.LabelDeletionProposed) {
		t.Fatalf("deletion proposal %+v", pr)
	}
	head := f.head("drafts/old/delete")
	files := f.tree(head)
	for p := range files {
		if strings.HasPrefix(p, "old/") {
			t.Fatalf("the deletion draft still has %s", p)
		}
	}
	if files["keep/Kptfile"] == nil {
		t.Fatal("the deletion draft removed another package")
	}
	c, _, err := f.alice.Git.GetCommit(f.ctx, pubOwner, pubRepo, head)
	if err != nil {
		t.Fatal(err)
	}
	if tr, ok := packages.FindTrailer(c.GetMessage()); !ok || tr.Package != "old" || tr.WorkspaceName != "delete" ||
		tr.Task == nil || tr.Task.Type != proposals.DeletionTaskType {
		t.Fatalf("trailer of %q", c.GetMessage())
	}

	// Asked again: the same proposal, no second one.
	s = f.h.Open(t)
	again, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "old", "bob")
	if err != nil || again.Number != pr.GetNumber() {
		t.Fatalf("second /porch delete: #%d %v (want #%d)", again.Number, err, pr.GetNumber())
	}
	if _, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "old/sub", "bob"); !errors.Is(err, proposals.ErrDeletionNoPackage) {
		t.Fatalf("deleting a subpackage: %v", err)
	}
	if _, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "nope", "bob"); !errors.Is(err, proposals.ErrDeletionNoPackage) {
		t.Fatalf("deleting nothing: %v", err)
	}

	f.approve(pr.GetNumber())
	m, merged := f.merge(pr.GetNumber())
	s = f.h.Open(t)
	out := publishLanding(t, s, m, merged)
	if len(out.Published) != 0 || strings.Join(out.Deleted, ",") != "old" {
		t.Fatalf("publish of the deletion: %+v", out)
	}
	f.wantTags(map[string]plumbing.Hash{"old/v1": plumbing.NewHash(c1), "keep/v1": plumbing.NewHash(c1)})
	if tree := f.tree(m.String()); tree["old/Kptfile"] != nil || tree["keep/Kptfile"] == nil {
		t.Fatal("the merge did not delete the package")
	}
	cs := f.comments(pr.GetNumber())
	if len(cs) != 2 || !strings.Contains(cs[0], `porchbot:requester {"user":"alice"}`) ||
		!strings.Contains(cs[1], "was deleted") || !strings.Contains(cs[1], "old/v1") {
		t.Fatalf("comments %q", cs)
	}
	// The resync has nothing to do about a deleted package.
	rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil || len(rep.Published) != 0 {
		t.Fatalf("resync after deletion: %+v %v", rep, err)
	}
}

func TestDeletionBranchTakenGetsASuffix(t *testing.T) {
	f := newPubFixture(t, "")
	f.commit("main", "", func(files map[string][]byte) { files["pkg/Kptfile"] = pubKptfile("pkg") })
	// A draft that happens to be called "delete" and keeps the package.
	f.commit("drafts/pkg/delete", "", func(files map[string][]byte) { files["pkg/x.yaml"] = pubNamespace("x") })
	s := f.h.Open(t)
	pr, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "pkg", "")
	if err != nil {
		t.Fatal(err)
	}
	if pr.Head.Ref != "drafts/pkg/delete-2" {
		t.Fatalf("head %s", pr.Head.Ref)
	}
}

func hasLabelNamed(pr *github.PullRequest, name string) bool {
	for _, l := range pr.Labels {
		if l.GetName() == name {
			return true
		}
	}
	return false
}
