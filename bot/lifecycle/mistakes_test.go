package lifecycle_test

import (
	"context"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
)

// TestMistakesSayWhatToDo: the refusals of names that are not there say
// what is there and what to do, as the repository's config has it.
func TestMistakesSayWhatToDo(t *testing.T) {
	h := newHarness(t)
	h.Seed(t, map[string][]byte{
		".github/porchbot.yaml": []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nlifecycle:\n  publishOn: never\n"),
		"basens/Kptfile":        []byte(basensKptfile),
		"network/upf/Kptfile":   []byte(basensKptfile),
		"network/smf/Kptfile":   []byte(basensKptfile),
	})
	s := h.Open(t)
	ctx := context.Background()

	ndWantRequestError(t, proposals.RequirePackage(ctx, s, "network/spf"), "Did you mean `network/smf` or `network/upf`?")
	ndWantRequestError(t, proposals.RequirePackage(ctx, s, "zzz"), "There is no package `zzz` on `main`. `/porch list` lists the packages.")
	if err := proposals.RequirePackage(ctx, s, "basens"); err != nil {
		t.Fatal(err)
	}
	_, err := proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "basens"})
	ndWantRequestError(t, err, "by `/porch publish` in the merged pull request (this repository says `publishOn: never`)")

	if _, err := proposals.NewDraft(ctx, s, proposals.NewDraftRequest{Package: "edge/amf"}); err != nil {
		t.Fatal(err)
	}
	s = h.Open(t)
	_, err = proposals.EditDraft(ctx, s, proposals.EditRequest{Package: "edge/amf"})
	ndWantRequestError(t, err, "it is only a draft (`drafts/edge/amf/v1`). `/porch propose edge/amf/v1` proposes it")
	ndWantRequestError(t, proposals.CheckProposable(ctx, s, s.Hub, "edge/amf", "v2"), "Did you mean `edge/amf/v1`?")
	ndWantRequestError(t, proposals.CheckProposable(ctx, s, s.Hub, "basens", "v1"), "`/porch edit basens` starts a draft of `basens`")
	if err := proposals.CheckProposable(ctx, s, s.Hub, "edge/amf", "v1"); err != nil {
		t.Fatalf("a draft with a commit of its own: %v", err)
	}
}
