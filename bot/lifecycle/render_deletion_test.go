package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// TestDeletionDraftRenderCheckSaysItIsADeletion (issue #12): the render
// check of a deletion proposal's draft says the commit deletes the
// package, not "Package not found".
func TestDeletionDraftRenderCheckSaysItIsADeletion(t *testing.T) {
	f := newPubFixture(t, "")
	c1 := f.commit("main", "", func(files map[string][]byte) {
		files["old/Kptfile"] = pubKptfile("old")
		files["old/cm.yaml"] = pubConfigMap("old", "cfg", "1")
	})
	s := f.h.Open(t)
	publishLanding(t, s, plumbing.NewHash(c1), nil)
	if _, err := proposals.ProposeDeletion(f.ctx, s, proposals.NewDeletionAPI(s.Hub), "old", "alice"); err != nil {
		t.Fatal(err)
	}
	s = f.h.Open(t)
	head := plumbing.NewHash(f.head("drafts/old/delete"))
	out, err := rendercheck.RenderDraft(f.ctx, s, s.Hub, rendercheck.RenderRequest{Branch: "drafts/old/delete", Head: head})
	if err != nil {
		t.Fatal(err)
	}
	run := f.h.OneCheck(t, head, core.RenderCheckName)
	title, sum := run.GetOutput().GetTitle(), run.GetOutput().GetSummary()
	if out.Conclusion != core.ConclusionNeutral || run.GetConclusion() != "neutral" ||
		title != "Deletion of old: nothing to render" || strings.Contains(title, "not found") ||
		!strings.Contains(sum, "This commit deletes the package `old`") || !strings.Contains(sum, "removes the package from `main`") {
		t.Fatalf("check %s %q\n%s", run.GetConclusion(), title, sum)
	}

	// a draft of a package that never existed is still "not found"
	ghost := plumbing.NewHash(f.commit("drafts/ghost/w1", "", func(files map[string][]byte) {
		files["ghost/README.md"] = []byte("no Kptfile\n")
	}))
	s = f.h.Open(t)
	if _, err := rendercheck.RenderDraft(f.ctx, s, s.Hub, rendercheck.RenderRequest{Branch: "drafts/ghost/w1", Head: ghost}); err != nil {
		t.Fatal(err)
	}
	if run := f.h.OneCheck(t, ghost, core.RenderCheckName); run.GetOutput().GetTitle() != "Package ghost not found" {
		t.Errorf("ghost: %q", run.GetOutput().GetTitle())
	}
}
