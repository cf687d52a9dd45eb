package lifecycle_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/index"
)

// indexOnForge reads index.yaml from the porch/index branch on the forge.
func (h *harness) indexOnForge(t *testing.T) *index.Index {
	t.Helper()
	fc, _, _, err := h.User(forgetest.AliceToken).Repositories.GetContents(context.Background(), "acme", "catalog", index.FileName,
		&github.RepositoryContentGetOptions{Ref: index.DefaultBranch})
	if err != nil {
		t.Fatal(err)
	}
	text, err := fc.GetContent()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Decode([]byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return idx
}

// tag makes a revision tag as a publish does (signed; REST as alice).
func (h *harness) tag(t *testing.T, tag, sha string) {
	t.Helper()
	if err := lifecycletest.RevisionTag(context.Background(), h.User(forgetest.AliceToken), "acme", "catalog", tag, sha); err != nil {
		t.Fatal(err)
	}
}

// tagDate is the tagger's date of an annotated tag on acme/catalog (REST).
func (h *harness) tagDate(t *testing.T, tag string) time.Time {
	t.Helper()
	gh := h.User(forgetest.AliceToken)
	ref, _, err := gh.Git.GetRef(context.Background(), "acme", "catalog", "tags/"+tag)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := gh.Git.GetTag(context.Background(), "acme", "catalog", ref.GetObject().GetSHA())
	if err != nil {
		t.Fatal(err)
	}
	return obj.GetTagger().GetDate().Time
}

// TestUpdateIndex: the index branch is made on the first publish, from the
// cache plus a tag made through the API a moment ago; the same state
// pushes nothing; approvers known at publish are recorded; a change pushed
// to the branch by someone else meanwhile is built upon, not overwritten.
func TestUpdateIndex(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(propKptfile), "basens/ns.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: basens\n")})
	s := h.Open(t)
	// basens/v1 "just tagged" through the API: not in the cache yet.
	// The tag is made in a later second than the commit, as a publish's
	// usually is.
	later := time.Now().Add(time.Minute)
	h.Env.Forge.SetClock(func() time.Time { return later })
	defer h.Env.Forge.SetClock(nil)
	h.tag(t, "basens/v1", sha)
	// The run that made the tag knows its date: the index records it, as
	// the cache reads it once the tag is fetched.
	published := []index.Tag{{Package: "basens", Revision: 1, Commit: sha, Time: h.tagDate(t, "basens/v1")}}
	head, pushed, err := publish.UpdateIndex(ctx, s, publish.IndexUpdate{Published: published,
		Approvers: map[string][]string{"basens/v1": {"bob"}}})
	if err != nil || !pushed || head.IsZero() {
		t.Fatalf("first update: pushed %v head %s (%v)", pushed, head, err)
	}
	idx := h.indexOnForge(t)
	if idx.Repository != "acme/catalog" || len(idx.Packages) != 1 || idx.Packages[0].Description != "base namespace" {
		t.Fatalf("index %+v", idx)
	}
	v1 := idx.Packages[0].Revisions[0]
	files, err := s.Git.ReadTree(ctx, s.DeploymentHead, "basens")
	if err != nil {
		t.Fatal(err)
	}
	if v1.Tag != "basens/v1" || v1.Commit != sha || v1.Digest != index.TreeDigest(files) || strings.Join(v1.Approvers, ",") != "bob" {
		t.Fatalf("v1 %+v", v1)
	}

	// Nothing new: no push, and the approvers stay (git does not hold them).
	s = h.Open(t)
	if _, pushed, err := publish.UpdateIndex(ctx, s, publish.IndexUpdate{}); err != nil || pushed {
		t.Fatalf("second update: pushed %v (%v)", pushed, err)
	}
	if got := h.indexOnForge(t).Packages[0].Revisions[0].Approvers; strings.Join(got, ",") != "bob" {
		t.Fatalf("approvers after a rebuild: %v", got)
	}

	// Someone pushes a stale index to the branch after this session
	// fetched: the bot's push is refused by the lease, it builds again on
	// the new head, and the result is the repository's truth again.
	stale := s
	alice, _ := h.Env.Forge.Account("alice")
	if _, err := h.Env.Forge.CommitFiles("acme/catalog", index.DefaultBranch, map[string][]byte{index.FileName: []byte("garbage: [\n")}, "break it", alice); err != nil {
		t.Fatal(err)
	}
	if _, pushed, err := publish.UpdateIndex(ctx, stale, publish.IndexUpdate{Approvers: map[string][]string{"basens/v1": {"carol"}}}); err != nil || !pushed {
		t.Fatalf("update over a moved branch: pushed %v (%v)", pushed, err)
	}
	idx = h.indexOnForge(t)
	if r := idx.Packages[0].Revisions[0]; r.Commit != sha || strings.Join(r.Approvers, ",") != "carol" {
		t.Fatalf("after the race: %+v", r)
	}
}

// TestResyncRebuildsTheIndex: a published revision whose index push was
// lost (or an index branch someone deleted) is back after a resync, and a
// resync with nothing new pushes nothing.
func TestResyncRebuildsTheIndex(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(propKptfile)})
	alice := h.User(forgetest.AliceToken)
	h.tag(t, "basens/v1", sha)
	resync := func() *resync.Report {
		t.Helper()
		s := h.Open(t)
		rep, err := resync.Repository(ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := resync(); !rep.IndexUpdated {
		t.Fatal("the missing index was not built")
	}
	if idx := h.indexOnForge(t); len(idx.Packages) != 1 || idx.Packages[0].Revisions[0].Commit != sha {
		t.Fatalf("index %+v", idx)
	}
	if rep := resync(); rep.IndexUpdated {
		t.Fatal("an index in step was pushed again")
	}
	if _, err := alice.Git.DeleteRef(ctx, "acme", "catalog", "heads/"+index.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if rep := resync(); !rep.IndexUpdated {
		t.Fatal("the deleted index was not rebuilt")
	}
	h.indexOnForge(t)
}

// TestUpdateIndexOnTheConfiguredBranch: lifecycle.indexBranch names the
// branch the index lives on.
func TestUpdateIndexOnTheConfiguredBranch(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sha := h.Seed(t, map[string][]byte{"basens/Kptfile": []byte(propKptfile)})
	h.tag(t, "basens/v1", sha)
	s := h.Open(t)
	s.Config.Lifecycle.IndexBranch = "catalog/index"
	if _, pushed, err := publish.UpdateIndex(ctx, s, publish.IndexUpdate{}); err != nil || !pushed {
		t.Fatalf("pushed %v (%v)", pushed, err)
	}
	alice := h.User(forgetest.AliceToken)
	if _, _, err := alice.Git.GetRef(ctx, "acme", "catalog", "heads/catalog/index"); err != nil {
		t.Fatalf("no catalog/index: %v", err)
	}
	if _, _, err := alice.Git.GetRef(ctx, "acme", "catalog", "heads/"+index.DefaultBranch); err == nil {
		t.Fatal("the index went to the default branch too")
	}
}
