package e2e

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/porchbot/porchbot/internal/index"
)

var replicasLine = regexp.MustCompile(`replicas: \d+`)

// publishUPFReplicas publishes a revision of network/upf through the whole
// lifecycle (draft, proposal, bob's approval, alice's merge) and returns
// the landed commit.
func (w *world) publishUPFReplicas(n int) string {
	w.t.Helper()
	const repo = "acme/catalog"
	branch := fmt.Sprintf("drafts/network/upf/replicas-%d", n)
	dir := w.clone("alice", repo)
	w.git(dir, "switch", "-q", "-c", branch)
	w.write(dir, "network/upf/deployment.yaml", replicasLine.ReplaceAllString(readFile(w.t, dir, "network/upf/deployment.yaml"), fmt.Sprintf("replicas: %d", n)))
	w.git(dir, "commit", "-q", "-am", fmt.Sprintf("UPF with %d replicas", n))
	w.git(dir, "push", "-q", "origin", "HEAD")
	w.settle()
	return w.land(repo, branch, fmt.Sprintf("Scale the UPF to %d", n))
}

// land opens the pull request of branch as alice, has bob approve it and
// alice merge it; it returns the merge commit.
func (w *world) land(repo, branch, title string) string {
	w.t.Helper()
	pr := w.openPull("alice", repo, branch, title)
	w.settle()
	w.approve("bob", repo, pr.GetNumber())
	w.settle()
	m := w.merge("alice", repo, pr.GetNumber())
	w.settle()
	return m
}

// indexPackage is the package name of idx (nil when not listed).
func indexPackage(idx *index.Index, name string) *index.Package {
	for i := range idx.Packages {
		if idx.Packages[i].Name == name {
			return &idx.Packages[i]
		}
	}
	return nil
}

// indexOnBranch is index.yaml on porch/index, as bytes.
func (w *world) indexOnBranch(repo string) []byte {
	w.t.Helper()
	text, ok := w.file(repo, index.DefaultBranch, index.FileName)
	if !ok {
		w.t.Fatalf("no %s on %s of %s", index.FileName, index.DefaultBranch, repo)
	}
	return []byte(text)
}

// TestPackageIndexEndToEnd (#10 §1): acme/edge-1 tracks network/upf;
// three revisions of network/upf are published through the lifecycle.
// index.yaml on porch/index lists them, with the downstream, and digests
// that verify against a clone; the offline build of a clone gives the
// same bytes; each release carries the index of its publish as an asset;
// a tag moved by hand is reported by verify, and the resync rebuilds the
// index true to the repository again.
func TestPackageIndexEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	base := w.svc.Embedded.Forge.BaseURL()

	edge := w.clone("alice", "acme/edge-1")
	w.write(edge, "upf/Kptfile", trackingKptfile("upf", base+"/acme/catalog.git", "/network/upf"))
	w.git(edge, "add", "-A")
	w.git(edge, "commit", "-q", "-m", "The UPF from the catalog")
	w.git(edge, "push", "-q", "origin", "HEAD:main")
	w.settle()

	before := w.stats()
	var landed []string
	for n := 2; n <= 4; n++ {
		landed = append(landed, w.publishUPFReplicas(n))
	}
	after := w.stats()
	uploads := after["POST /repos/{owner}/{repo}/releases/{id}/assets"] - before["POST /repos/{owner}/{repo}/releases/{id}/assets"]
	t.Logf("three publishes: %d index asset uploads", uploads)
	if uploads != 3 {
		t.Fatalf("%d index uploads for three releases", uploads)
	}

	data := w.indexOnBranch("acme/catalog")
	idx, err := index.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	upf := indexPackage(idx, "network/upf")
	if upf == nil {
		t.Fatalf("no network/upf in\n%s", data)
	}
	tags := w.tags("acme/catalog", "network/upf/")
	var listed []string
	for _, r := range upf.Revisions {
		listed = append(listed, r.Tag)
		if r.Commit != tags[r.Tag] || r.Digest == "" {
			t.Errorf("%s: commit %s digest %q, tag at %s", r.Tag, r.Commit, r.Digest, tags[r.Tag])
		}
	}
	for i, sha := range landed {
		tag := fmt.Sprintf("network/upf/v%d", upf.Revisions[0].Revision-2+i)
		if !slices.Contains(listed, tag) || tags[tag] != sha {
			t.Fatalf("revision %s at %s not listed (%v; tags %v)", tag, sha, listed, tags)
		}
	}
	if !slices.Contains(upf.Revisions[0].Approvers, "bob") {
		t.Errorf("latest revision approvers %v", upf.Revisions[0].Approvers)
	}
	if len(upf.Downstreams) != 1 || upf.Downstreams[0].Repository != "acme/edge-1" || upf.Downstreams[0].Package != "upf" {
		t.Errorf("downstreams %+v", upf.Downstreams)
	}

	// porchbot index and porchbot index verify, on a clone.
	clone := w.clone("alice", "acme/catalog")
	src, name, err := index.Open(w.ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := src.Previous()
	if err != nil {
		t.Fatal(err)
	}
	offline, err := index.Build(w.ctx, src, index.Options{Repository: name, Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := index.Encode(offline); string(b) != string(data) {
		t.Fatalf("offline build differs from porch/index:\n%s\n---\n%s", b, data)
	}
	if problems, err := index.Verify(w.ctx, idx, src, ""); err != nil || len(problems) != 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}

	// The latest release carries this index; each release the index of
	// its own publish.
	alice := w.client("alice")
	latest := upf.Revisions[0].Tag
	rel, _, err := alice.Repositories.GetReleaseByTag(w.ctx, "acme", "catalog", latest)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Assets) != 1 || rel.Assets[0].GetName() != index.FileName {
		t.Fatalf("assets of %s: %v", latest, rel.Assets)
	}
	rc, _, err := alice.Repositories.DownloadReleaseAsset(w.ctx, "acme", "catalog", rel.Assets[0].GetID(), http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	asset, _ := io.ReadAll(rc)
	rc.Close()
	if string(asset) != string(data) {
		t.Fatalf("the asset of %s is not the index:\n%s", latest, asset)
	}
	older, _, err := alice.Repositories.GetReleaseByTag(w.ctx, "acme", "catalog", upf.Revisions[1].Tag)
	if err != nil || len(older.Assets) != 1 {
		t.Fatalf("assets of %s: %v (%v)", upf.Revisions[1].Tag, older.Assets, err)
	}

	// Someone moves a tag by hand: verify reports it.
	moved := upf.Revisions[1].Tag
	w.git(clone, "tag", "-f", moved, landed[0])
	w.git(clone, "push", "-q", "-f", "origin", "refs/tags/"+moved)
	w.settle()
	fresh := w.clone("carol", "acme/catalog")
	src, _, err = index.Open(w.ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := index.Verify(w.ctx, idx, src, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Tag != moved || problems[0].Kind != index.ProblemMoved {
		t.Fatalf("after moving %s: %v", moved, problems)
	}

	// The resync finds the index stale and rebuilds it: a tag moved by
	// hand is no longer porchbot's revision (its record names the old
	// commit), so the index no longer lists it (docs/security.md) and
	// verify says only that.
	if rep, err := w.resync("acme/catalog"); err != nil || !rep.IndexUpdated {
		t.Fatalf("resync after the move: updated %v (%v)", rep != nil && rep.IndexUpdated, err)
	}
	rebuilt, err := index.Decode(w.indexOnBranch("acme/catalog"))
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := index.Verify(w.ctx, rebuilt, src, ""); err != nil || len(problems) != 1 ||
		problems[0].Tag != moved || problems[0].Kind != index.ProblemUnlisted {
		t.Fatalf("the rebuilt index: %v %v", problems, err)
	}
}
