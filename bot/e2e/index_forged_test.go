package e2e

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/index"
)

// TestForgedIndexIsIgnored: bob, a write collaborator, pushes to
// porch/index a commit of his own whose index names mallory as the
// approver of network/upf's latest revision, with a description and a
// site of his. porchbot does not build on it: the resync replaces it with
// its own signed index, rebuilt from the revisions (approvers from their
// signed tags, description and site from the Kptfile at the tagged
// commit), and the next publish's index and release asset carry nothing
// of his. Deleted, the index is rebuilt with every approver (they are in
// the signed tags).
func TestForgedIndexIsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const repo = "acme/catalog"
	w.publishUPFReplicas(2)
	genuine, err := index.Decode(w.indexOnBranch(repo))
	if err != nil {
		t.Fatal(err)
	}
	upf := indexPackage(genuine, "network/upf")
	if upf == nil || !slices.Contains(upf.Revisions[0].Approvers, "bob") {
		t.Fatalf("the genuine index: %+v", upf)
	}

	dir := w.clone("bob", repo)
	w.git(dir, "switch", "-q", index.DefaultBranch)
	forged, err := index.Decode([]byte(readFile(t, dir, index.FileName)))
	if err != nil {
		t.Fatal(err)
	}
	p := indexPackage(forged, "network/upf")
	p.Description, p.Site = "Trusted by everyone", "https://evil.example/upf"
	p.Revisions[0].Approvers = []string{"mallory"}
	data, err := index.Encode(forged)
	if err != nil {
		t.Fatal(err)
	}
	w.write(dir, index.FileName, string(data))
	w.git(dir, "commit", "-q", "-am", "Index: network/upf/v2")
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()

	wantGenuine := func(when string, data []byte) {
		t.Helper()
		text := string(data)
		if strings.Contains(text, "mallory") || strings.Contains(text, "evil.example") || strings.Contains(text, "Trusted by everyone") {
			t.Fatalf("%s: the forged index was carried:\n%s", when, text)
		}
		idx, err := index.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		p := indexPackage(idx, "network/upf")
		if p == nil || p.Description != upf.Description || p.Site != upf.Site {
			t.Fatalf("%s: network/upf %+v", when, p)
		}
		for _, r := range p.Revisions {
			if r.Tag == upf.Revisions[0].Tag && !slices.Equal(r.Approvers, upf.Revisions[0].Approvers) {
				t.Fatalf("%s: %s approved by %v, want %v", when, r.Tag, r.Approvers, upf.Revisions[0].Approvers)
			}
		}
	}
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	wantGenuine("after the resync", w.indexOnBranch(repo))
	if msg := w.commitMessage(repo, w.branchSHA(repo, index.DefaultBranch)); !strings.Contains(msg, "Porchbot-Index-Signature: ") {
		t.Fatalf("the index branch's head is not porchbot's:\n%s", msg)
	}

	// Deleted, the index comes back whole: its approvers are in the signed
	// tags.
	w.git(dir, "push", "-q", "origin", ":refs/heads/"+index.DefaultBranch)
	w.settle()
	if _, err := w.resync(repo); err != nil {
		t.Fatal(err)
	}
	w.settle()
	wantGenuine("rebuilt after its deletion", w.indexOnBranch(repo))

	w.publishUPFReplicas(3)
	wantGenuine("after the next publish", w.indexOnBranch(repo))
	tags := w.tags(repo, "network/upf/")
	latest := "network/upf/v" + itoa(len(tags))
	owner, name := splitRepo(repo)
	rel, _, err := w.client("alice").Repositories.GetReleaseByTag(w.ctx, owner, name, latest)
	if err != nil || len(rel.Assets) != 1 {
		t.Fatalf("release %s: %v %v", latest, rel, err)
	}
	rc, _, err := w.client("alice").Repositories.DownloadReleaseAsset(w.ctx, owner, name, rel.Assets[0].GetID(), http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	asset, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantGenuine("the release asset", asset)
}
