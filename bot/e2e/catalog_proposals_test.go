package e2e

import (
	"strings"
	"testing"

	botcatalog "github.com/porchbot/porchbot/bot/catalog"
	"github.com/porchbot/porchbot/internal/catalog"
)

// TestCatalogNamesTheFeatureBranchProposalsPackages (#26 §4): a proposal
// from a branch that is not a draft's lists the packages it changes in the
// catalog, as the approval reads them, and the package's page has it.
func TestCatalogNamesTheFeatureBranchProposalsPackages(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	pr, _ := w.featureProposal(repo)
	w.settle()
	id, err := w.svc.Clients.InstallationIDForRepo(w.ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	loader := &botcatalog.RepoLoader{Sessions: w.svc.App.Opener, Web: w.svc.Embedded.Forge.BaseURL() + "/"}
	view, err := loader.Load(w.ctx, catalog.RepoRef{Owner: "acme", Name: "catalog", InstallationID: id, DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var found *catalog.Proposal
	for i, p := range view.Proposals {
		if p.Number == pr.GetNumber() {
			found = &view.Proposals[i]
		}
	}
	if found == nil || strings.Join(found.Packages, ",") != "network/upf" {
		t.Fatalf("the catalog's proposal #%d: %+v (all: %+v)", pr.GetNumber(), found, view.Proposals)
	}
}
