package catalog_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/index"
)

// TestCatalogIgnoresAForgedIndex: bob, a write collaborator of
// acme/catalog, pushes to porch/index a commit of his own naming mallory
// as the approver of basens/v2, with a description of his. The catalog
// shows only what porchbot signed: the index rebuilt from porchbot's
// revisions and the Kptfiles at their commits.
func TestCatalogIgnoresAForgedIndex(t *testing.T) {
	w := startWorld(t)
	dir := w.clone(t, "bob", "acme/catalog")
	w.git(t, dir, "checkout", "-q", "-B", index.DefaultBranch, "origin/"+index.DefaultBranch)
	data, err := os.ReadFile(filepath.Join(dir, index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range idx.Packages {
		if p := &idx.Packages[i]; p.Name == "basens" {
			p.Description = "Forged by bob"
			p.Revisions[0].Approvers = []string{"mallory"}
		}
	}
	if data, err = index.Encode(idx); err != nil {
		t.Fatal(err)
	}
	write(t, dir, index.FileName, string(data))
	w.git(t, dir, "commit", "-q", "-am", "Index: basens/v2")
	w.git(t, dir, "push", "-q", "origin", "HEAD:"+index.DefaultBranch)
	w.settle(t)

	alice := newViewer(t)
	alice.signIn(w, "alice")
	status, pkg, _ := alice.get(w.catalog + "/repos/acme/catalog/packages/basens")
	if status != http.StatusOK || !strings.Contains(pkg, "basens/v2") || !strings.Contains(pkg, "The base namespace") {
		t.Fatalf("alice's basens page: %d\n%s", status, pkg)
	}
	if strings.Contains(pkg, "mallory") || strings.Contains(pkg, "Forged by bob") {
		t.Fatalf("the catalog shows bob's forged index:\n%s", pkg)
	}
	if _, repo, _ := alice.get(w.catalog + "/repos/acme/catalog"); !strings.Contains(repo, "index rebuilt from porchbot") {
		t.Errorf("the repository page does not say the index was rebuilt:\n%s", repo)
	}
}
