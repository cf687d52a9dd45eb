package forge_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

func TestGitDataRoundTrip(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.AliceToken)
	base := gtSeed(t, env, "main", map[string]string{"README.md": "# catalog\n", "network/upf/Kptfile": "kind: Kptfile\n"})

	// Blobs, utf-8 and base64.
	text, resp, err := c.Git.CreateBlob(ctx, gtOwner, gtName, &github.Blob{Content: github.String("hello\n"), Encoding: github.String("utf-8")})
	gtWantStatus(t, "create utf-8 blob", resp, err, http.StatusCreated)
	bin := []byte{0, 1, 2, 0xff, '\n'}
	blob, resp, err := c.Git.CreateBlob(ctx, gtOwner, gtName, &github.Blob{
		Content: github.String(base64.StdEncoding.EncodeToString(bin)), Encoding: github.String("base64")})
	gtWantStatus(t, "create base64 blob", resp, err, http.StatusCreated)
	got, _, err := c.Git.GetBlob(ctx, gtOwner, gtName, blob.GetSHA())
	if err != nil {
		t.Fatal(err)
	}
	dec, err := base64.StdEncoding.DecodeString(got.GetContent())
	if err != nil || !bytes.Equal(dec, bin) || got.GetSize() != len(bin) || got.GetEncoding() != "base64" || got.GetSHA() != blob.GetSHA() {
		t.Fatalf("blob round trip: %+v (%v)", got, err)
	}
	raw, _, err := c.Git.GetBlobRaw(ctx, gtOwner, gtName, text.GetSHA())
	if err != nil || string(raw) != "hello\n" {
		t.Fatalf("raw blob %q %v", raw, err)
	}

	// A tree on top of the base commit's: nested content, a blob by sha,
	// a deletion (sha null).
	baseCommit, _, err := c.Git.GetCommit(ctx, gtOwner, gtName, base)
	if err != nil {
		t.Fatal(err)
	}
	if baseCommit.GetMessage() != "seed main" || baseCommit.GetAuthor().GetName() != "alice" || len(baseCommit.Parents) != 0 {
		t.Fatalf("base commit %+v", baseCommit)
	}
	tree, resp, err := c.Git.CreateTree(ctx, gtOwner, gtName, baseCommit.GetTree().GetSHA(), []*github.TreeEntry{
		{Path: github.String("network/smf/Kptfile"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("kind: Kptfile\n")},
		{Path: github.String("bin/data"), Mode: github.String("100755"), Type: github.String("blob"), SHA: blob.SHA},
		{Path: github.String("README.md"), Mode: github.String("100644"), Type: github.String("blob")},
	})
	gtWantStatus(t, "create tree", resp, err, http.StatusCreated)
	var top []string
	for _, e := range tree.Entries {
		top = append(top, e.GetType()+" "+e.GetPath())
	}
	if strings.Join(top, ",") != "tree bin,tree network" {
		t.Fatalf("new tree's top level: %v", top)
	}
	full, _, err := c.Git.GetTree(ctx, gtOwner, gtName, tree.GetSHA(), true)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]*github.TreeEntry{}
	for _, e := range full.Entries {
		entries[e.GetPath()] = e
	}
	if full.GetTruncated() || len(entries) != 7 || entries["README.md"] != nil ||
		entries["bin/data"].GetSHA() != blob.GetSHA() || entries["bin/data"].GetMode() != "100755" ||
		entries["bin/data"].GetSize() != len(bin) || entries["network/smf"].GetType() != "tree" ||
		entries["network/upf/Kptfile"] == nil || entries["network/smf/Kptfile"] == nil {
		t.Fatalf("recursive tree: %v", full)
	}
	// The tree is also reachable by a branch name.
	if byRef, _, err := c.Git.GetTree(ctx, gtOwner, gtName, "main", false); err != nil || byRef.GetSHA() != baseCommit.GetTree().GetSHA() {
		t.Fatalf("tree of main: %v %v", byRef, err)
	}

	// A commit of it, with an explicit author in another time zone.
	when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("", 2*3600))
	commit, resp, err := c.Git.CreateCommit(ctx, gtOwner, gtName, &github.Commit{
		Message: github.String("Add smf\n\nand a binary"), Tree: &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(base)}},
		Author:  &github.CommitAuthor{Name: github.String("Dev One"), Email: github.String("dev@example.com"), Date: &github.Timestamp{Time: when}},
	}, nil)
	gtWantStatus(t, "create commit", resp, err, http.StatusCreated)
	if commit.GetTree().GetSHA() != tree.GetSHA() || len(commit.Parents) != 1 || commit.Parents[0].GetSHA() != base ||
		commit.GetAuthor().GetName() != "Dev One" || !commit.GetAuthor().GetDate().Time.Equal(when) ||
		commit.GetCommitter().GetName() != "Dev One" || commit.GetMessage() != "Add smf\n\nand a binary" ||
		commit.GetVerification().GetReason() != "unsigned" {
		t.Fatalf("created commit %+v", commit)
	}
	again, _, err := c.Git.GetCommit(ctx, gtOwner, gtName, commit.GetSHA())
	if err != nil || again.GetSHA() != commit.GetSHA() || again.GetMessage() != commit.GetMessage() {
		t.Fatalf("get commit: %+v %v", again, err)
	}

	// Refs: create, conflict, get, fast-forward, non-fast-forward.
	ref, resp, err := c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/feature"),
		Object: &github.GitObject{SHA: commit.SHA}})
	gtWantStatus(t, "create ref", resp, err, http.StatusCreated)
	if ref.GetRef() != "refs/heads/feature" || ref.GetObject().GetType() != "commit" || ref.GetObject().GetSHA() != commit.GetSHA() {
		t.Fatalf("created ref %+v", ref)
	}
	_, resp, err = c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/feature"),
		Object: &github.GitObject{SHA: github.String(base)}})
	if er := gtWantStatus(t, "create existing ref", resp, err, http.StatusUnprocessableEntity); er == nil || er.Message != "Reference already exists" {
		t.Fatalf("existing ref: %v", err)
	}
	for _, name := range []string{"heads/feature", "refs/heads/feature"} {
		r, _, err := c.Git.GetRef(ctx, gtOwner, gtName, name)
		if err != nil || r.GetObject().GetSHA() != commit.GetSHA() {
			t.Fatalf("get ref %s: %+v %v", name, r, err)
		}
	}
	_, resp, err = c.Git.UpdateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/main"),
		Object: &github.GitObject{SHA: commit.SHA}}, false)
	gtWantStatus(t, "fast-forward main", resp, err, http.StatusOK)

	sibling, _, err := c.Git.CreateCommit(ctx, gtOwner, gtName, &github.Commit{Message: github.String("sibling"),
		Tree: &github.Tree{SHA: baseCommit.GetTree().SHA}, Parents: []*github.Commit{{SHA: github.String(base)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err = c.Git.UpdateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/main"),
		Object: &github.GitObject{SHA: sibling.SHA}}, false)
	if er := gtWantStatus(t, "non-fast-forward", resp, err, http.StatusUnprocessableEntity); er == nil || er.Message != "Update is not a fast forward" {
		t.Fatalf("non-fast-forward: %v", err)
	}
	if r, _, _ := c.Git.GetRef(ctx, gtOwner, gtName, "heads/main"); r.GetObject().GetSHA() != commit.GetSHA() {
		t.Fatalf("main moved on a refused update: %v", r)
	}
	_, resp, err = c.Git.UpdateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/main"),
		Object: &github.GitObject{SHA: sibling.SHA}}, true)
	gtWantStatus(t, "forced update", resp, err, http.StatusOK)
	if r, _, _ := c.Git.GetRef(ctx, gtOwner, gtName, "heads/main"); r.GetObject().GetSHA() != sibling.GetSHA() {
		t.Fatalf("forced update did not move main: %v", r)
	}
	_, resp, err = c.Git.UpdateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/nope"),
		Object: &github.GitObject{SHA: sibling.SHA}}, true)
	if er := gtWantStatus(t, "update absent ref", resp, err, http.StatusUnprocessableEntity); er == nil || er.Message != "Reference does not exist" {
		t.Fatalf("update absent ref: %v", err)
	}

	// Matching refs: a prefix, all answered.
	_, _, err = c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/tags/network/upf/v1"),
		Object: &github.GitObject{SHA: commit.SHA}})
	if err != nil {
		t.Fatal(err)
	}
	names := func(opts string) []string {
		refs, _, err := c.Git.ListMatchingRefs(ctx, gtOwner, gtName, &github.ReferenceListOptions{Ref: opts})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range refs {
			out = append(out, r.GetRef())
		}
		return out
	}
	if got := names("heads/"); strings.Join(got, ",") != "refs/heads/feature,refs/heads/main" {
		t.Fatalf("matching heads/: %v", got)
	}
	if got := names("tags/network/upf/"); strings.Join(got, ",") != "refs/tags/network/upf/v1" {
		t.Fatalf("matching tags: %v", got)
	}
	if got := names("tags/nope"); len(got) != 0 {
		t.Fatalf("matching nothing: %v", got)
	}
	if got := names(""); len(got) != 3 {
		t.Fatalf("matching everything: %v", got)
	}

	// Delete.
	resp, err = c.Git.DeleteRef(ctx, gtOwner, gtName, "heads/feature")
	gtWantStatus(t, "delete ref", resp, err, http.StatusNoContent)
	resp, err = c.Git.DeleteRef(ctx, gtOwner, gtName, "heads/feature")
	if er := gtWantStatus(t, "delete absent ref", resp, err, http.StatusUnprocessableEntity); er == nil || er.Message != "Reference does not exist" {
		t.Fatalf("delete absent ref: %v", err)
	}
	_, resp, err = c.Git.GetRef(ctx, gtOwner, gtName, "heads/feature")
	gtWantStatus(t, "get deleted ref", resp, err, http.StatusNotFound)

	// Unknown and malformed objects.
	_, resp, err = c.Git.GetCommit(ctx, gtOwner, gtName, "not-a-sha")
	gtWantStatus(t, "malformed commit sha", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.GetCommit(ctx, gtOwner, gtName, strings.Repeat("ab", 20))
	gtWantStatus(t, "unknown commit", resp, err, http.StatusNotFound)
	_, resp, err = c.Git.GetCommit(ctx, gtOwner, gtName, blob.GetSHA())
	gtWantStatus(t, "a blob as a commit", resp, err, http.StatusNotFound)
	_, resp, err = c.Git.GetBlob(ctx, gtOwner, gtName, strings.Repeat("ab", 20))
	gtWantStatus(t, "unknown blob", resp, err, http.StatusNotFound)
	_, resp, err = c.Git.GetBlob(ctx, gtOwner, gtName, "abc")
	gtWantStatus(t, "malformed blob sha", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.GetTree(ctx, gtOwner, gtName, "no-such-branch", false)
	gtWantStatus(t, "unknown tree", resp, err, http.StatusNotFound)
	_, resp, err = c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/x"),
		Object: &github.GitObject{SHA: github.String(strings.Repeat("ab", 20))}})
	if er := gtWantStatus(t, "ref to an unknown object", resp, err, http.StatusUnprocessableEntity); er == nil || er.Message != "Object does not exist" {
		t.Fatalf("ref to unknown object: %v", err)
	}
	_, resp, err = c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/x"),
		Object: &github.GitObject{SHA: commit.SHA}})
	gtWantStatus(t, "ref name with one slash", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/a..b"),
		Object: &github.GitObject{SHA: commit.SHA}})
	gtWantStatus(t, "invalid ref name", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.CreateTree(ctx, gtOwner, gtName, "", []*github.TreeEntry{{Path: github.String("../x"),
		Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("x")}})
	gtWantStatus(t, "tree path escaping", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.CreateTree(ctx, gtOwner, gtName, "", []*github.TreeEntry{{Path: github.String("x"),
		Mode: github.String("100644"), Type: github.String("blob"), SHA: tree.SHA}})
	gtWantStatus(t, "tree entry naming a tree as a blob", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = c.Git.CreateCommit(ctx, gtOwner, gtName, &github.Commit{Message: github.String("x"),
		Tree: &github.Tree{SHA: github.String(base)}}, nil)
	gtWantStatus(t, "commit of a commit as tree", resp, err, http.StatusUnprocessableEntity)

	// Permissions: carol reads but may not write, mallory sees nothing.
	carol := env.Client(forgetest.CarolToken)
	if _, _, err := carol.Git.GetRef(ctx, gtOwner, gtName, "heads/main"); err != nil {
		t.Fatalf("carol reads refs: %v", err)
	}
	_, resp, err = carol.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/heads/carol"),
		Object: &github.GitObject{SHA: commit.SHA}})
	gtWantStatus(t, "carol creates a ref", resp, err, http.StatusForbidden)
	_, resp, err = carol.Git.CreateBlob(ctx, gtOwner, gtName, &github.Blob{Content: github.String("x")})
	gtWantStatus(t, "carol creates a blob", resp, err, http.StatusForbidden)
	_, resp, err = env.Client(forgetest.MalloryToken).Git.GetRef(ctx, gtOwner, gtName, "heads/main")
	gtWantStatus(t, "mallory reads a ref", resp, err, http.StatusNotFound)
}

func TestGitCreateTreeWithoutBase(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.BobToken)
	tree, _, err := c.Git.CreateTree(ctx, gtOwner, gtName, "", []*github.TreeEntry{
		{Path: github.String("a/b/c.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("c")},
		{Path: github.String("a/d.txt"), Mode: github.String("100644"), Content: github.String("d")},
		{Path: github.String("a/b/c.txt"), Mode: github.String("100644"), Type: github.String("blob")}, // deleted again
		{Path: github.String("link"), Mode: github.String("120000"), Type: github.String("blob"), Content: github.String("a/d.txt")},
	})
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := c.Git.GetTree(ctx, gtOwner, gtName, tree.GetSHA(), true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range full.Entries {
		paths = append(paths, e.GetMode()+" "+e.GetPath())
	}
	sort.Strings(paths)
	// a/b became empty and is gone.
	if strings.Join(paths, ",") != "040000 a,100644 a/d.txt,120000 link" {
		t.Fatalf("tree: %v", paths)
	}
	empty, _, err := c.Git.CreateTree(ctx, gtOwner, gtName, "", []*github.TreeEntry{})
	if err != nil || empty.GetSHA() != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Fatalf("empty tree: %v %v", empty, err)
	}
}

// TestGitCreateRefRace: the bot's tag creation is a compare-and-swap;
// of concurrent creations of one ref exactly one wins.
func TestGitCreateRefRace(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := gtSeed(t, env, "main", map[string]string{"README.md": "x\n"})
	second := gtSeed(t, env, "main", map[string]string{"README.md": "y\n"})
	clients := []*github.Client{env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken), env.Client(env.InstallationToken(t))}
	const n = 24
	codes := make([]int, n)
	msgs := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sha := base
			if i%2 == 1 {
				sha = second
			}
			_, resp, err := clients[i%len(clients)].Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{
				Ref: github.String("refs/tags/network/upf/v1"), Object: &github.GitObject{SHA: github.String(sha)}})
			if resp != nil {
				codes[i] = resp.StatusCode
			}
			if err != nil {
				msgs[i] = err.Error()
			}
		}(i)
	}
	wg.Wait()
	created := 0
	for i, code := range codes {
		switch code {
		case http.StatusCreated:
			created++
		case http.StatusUnprocessableEntity:
			if !strings.Contains(msgs[i], "Reference already exists") {
				t.Errorf("loser %d: %s", i, msgs[i])
			}
		default:
			t.Errorf("creation %d: status %d %s", i, code, msgs[i])
		}
	}
	if created != 1 {
		t.Fatalf("%d creations succeeded, want exactly 1 (%v)", created, codes)
	}
}

func TestGitAnnotatedTagAndBranches(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	c := env.Client(forgetest.AliceToken)
	head := gtSeed(t, env, "main", map[string]string{"README.md": "x\n"})
	gtSeed(t, env, "drafts/network/upf/w1", map[string]string{"README.md": "y\n"})

	tag, resp, err := c.Git.CreateTag(ctx, gtOwner, gtName, &github.Tag{Tag: github.String("v1"), Message: github.String("Release v1\n"),
		Object: &github.GitObject{SHA: github.String(head), Type: github.String("commit")}})
	gtWantStatus(t, "create tag", resp, err, http.StatusCreated)
	if tag.GetTag() != "v1" || tag.GetObject().GetSHA() != head || tag.GetTagger().GetName() != "alice" || tag.GetMessage() != "Release v1\n" {
		t.Fatalf("tag %+v", tag)
	}
	ref, _, err := c.Git.CreateRef(ctx, gtOwner, gtName, &github.Reference{Ref: github.String("refs/tags/v1"), Object: &github.GitObject{SHA: tag.SHA}})
	if err != nil || ref.GetObject().GetType() != "tag" {
		t.Fatalf("tag ref %+v %v", ref, err)
	}
	got, _, err := c.Git.GetTag(ctx, gtOwner, gtName, tag.GetSHA())
	if err != nil || got.GetTag() != "v1" {
		t.Fatalf("get tag %+v %v", got, err)
	}

	b, _, err := c.Repositories.GetBranch(ctx, gtOwner, gtName, "main", 0)
	if err != nil || b.GetName() != "main" || b.GetCommit().GetSHA() != head || b.GetProtected() ||
		b.GetCommit().GetCommit().GetMessage() != "seed main" || b.GetCommit().GetAuthor().GetLogin() != "alice" {
		t.Fatalf("branch main: %+v %v", b, err)
	}
	b, _, err = c.Repositories.GetBranch(ctx, gtOwner, gtName, "drafts/network/upf/w1", 0)
	if err != nil || b.GetName() != "drafts/network/upf/w1" {
		t.Fatalf("slashed branch: %+v %v", b, err)
	}
	_, resp, err = c.Repositories.GetBranch(ctx, gtOwner, gtName, "nope", 0)
	gtWantStatus(t, "absent branch", resp, err, http.StatusNotFound)
	list, _, err := c.Repositories.ListBranches(ctx, gtOwner, gtName, nil)
	if err != nil || len(list) != 2 || list[0].GetName() != "drafts/network/upf/w1" || list[1].GetCommit().GetSHA() != head {
		t.Fatalf("branches %v %v", list, err)
	}
}
