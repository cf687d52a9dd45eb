package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/resync"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/revrecord"
)

// pubFixture drives acme/catalog like people do: branches, pull requests,
// reviews and merges through go-github (the forge's merges are real git
// merges), direct pushes with the forge's CommitFiles.
type pubFixture struct {
	t          *testing.T
	h          *harness
	ctx        context.Context
	alice, bob *github.Client
}

const pubOwner, pubRepo = "acme", "catalog"

// newPubFixture seeds main with a README and, if cfg is set, the
// repository config.
func newPubFixture(t *testing.T, cfg string) *pubFixture {
	t.Helper()
	h := newHarness(t)
	files := map[string][]byte{"README.md": []byte("catalog\n")}
	if cfg != "" {
		files[".github/porchbot.yaml"] = []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n" + cfg)
	}
	h.Seed(t, files)
	return &pubFixture{t: t, h: h, ctx: context.Background(),
		alice: h.User(forgetest.AliceToken), bob: h.User(forgetest.BobToken)}
}

// pubNoApproval turns the approval requirement off: with it, a landing
// without a pull request (a direct push, a seed) publishes, as the tests of
// tags, ordering and tree comparison need; with approvals required it
// waits for an approver's /porch publish (bot/e2e TestDirectPushWaitsForAnApprover, TestFoundStateWaitsForAnApprover).
const pubNoApproval = "approvals:\n  required: 0\n"

func pubKptfile(name string) []byte {
	return []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n")
}

func pubConfigMap(ns, name, value string) []byte {
	return []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  value: %q\n", name, ns, value))
}

func pubNamespace(name string) []byte {
	return []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n")
}

// head is the commit a branch points at ("" if absent).
func (f *pubFixture) head(branch string) string {
	f.t.Helper()
	ref, resp, err := f.alice.Git.GetRef(f.ctx, pubOwner, pubRepo, "heads/"+branch)
	if resp != nil && resp.StatusCode == 404 {
		return ""
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return ref.GetObject().GetSHA()
}

// tree reads the whole tree of a commit.
func (f *pubFixture) tree(sha string) map[string][]byte {
	f.t.Helper()
	s := f.h.Open(f.t)
	files, err := s.Git.ReadTree(f.ctx, plumbing.NewHash(sha), "")
	if err != nil {
		f.t.Fatal(err)
	}
	return files
}

// commit edits the tree of base and commits it on branch (created at
// base when absent), as alice, without webhooks; it returns the commit.
func (f *pubFixture) commit(branch, base string, edit func(files map[string][]byte)) string {
	f.t.Helper()
	if base == "" {
		base = f.head("main")
	}
	if f.head(branch) == "" {
		if _, _, err := f.alice.Git.CreateRef(f.ctx, pubOwner, pubRepo, &github.Reference{
			Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
			f.t.Fatal(err)
		}
	}
	files := f.tree(base)
	edit(files)
	alice, _ := f.h.Env.Forge.Account("alice")
	sha, err := f.h.Env.Forge.CommitFiles("acme/catalog", branch, files, "edit "+branch, alice)
	if err != nil {
		f.t.Fatal(err)
	}
	return sha
}

// propose opens a pull request from branch into main as alice.
func (f *pubFixture) propose(branch, title string) *github.PullRequest {
	f.t.Helper()
	pr, _, err := f.alice.PullRequests.Create(f.ctx, pubOwner, pubRepo, &github.NewPullRequest{
		Title: github.String(title), Head: github.String(branch), Base: github.String("main")})
	if err != nil {
		f.t.Fatal(err)
	}
	return pr
}

// approve submits bob's approving review.
func (f *pubFixture) approve(n int) {
	f.t.Helper()
	if _, _, err := f.bob.PullRequests.CreateReview(f.ctx, pubOwner, pubRepo, n,
		&github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		f.t.Fatal(err)
	}
}

// merge merges with a merge commit as alice and returns the merge commit
// and the merged pull request as the pull_request event carries it.
func (f *pubFixture) merge(n int) (plumbing.Hash, *github.PullRequest) {
	f.t.Helper()
	res, _, err := f.alice.PullRequests.Merge(f.ctx, pubOwner, pubRepo, n, "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		f.t.Fatal(err)
	}
	pr, _, err := f.alice.PullRequests.Get(f.ctx, pubOwner, pubRepo, n)
	if err != nil {
		f.t.Fatal(err)
	}
	return plumbing.NewHash(res.GetSHA()), pr
}

// land proposes branch, has bob approve it and merges it.
func (f *pubFixture) land(branch, title string) (plumbing.Hash, *github.PullRequest) {
	f.t.Helper()
	pr := f.propose(branch, title)
	f.approve(pr.GetNumber())
	return f.merge(pr.GetNumber())
}

// tags maps every tag to its commit.
func (f *pubFixture) tags() map[string]string {
	f.t.Helper()
	out, err := forgetest.Tags(f.ctx, f.alice, pubOwner, pubRepo, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *pubFixture) wantTags(want map[string]plumbing.Hash) {
	f.t.Helper()
	got := f.tags()
	if len(got) != len(want) {
		f.t.Fatalf("tags: got %v, want %v", got, want)
	}
	for tag, c := range want {
		if got[tag] != c.String() {
			f.t.Fatalf("tag %s: got %s, want %s (all: %v)", tag, got[tag], c, got)
		}
	}
}

// comments lists the bodies of an issue's comments.
func (f *pubFixture) comments(n int) []string {
	f.t.Helper()
	cs, _, err := f.alice.Issues.ListComments(f.ctx, pubOwner, pubRepo, n, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.GetBody()
	}
	return out
}

// release finds the forge's release of a tag.
func (f *pubFixture) release(tag string) *forge.Release {
	for _, r := range f.h.Env.Forge.Releases("acme/catalog") {
		if r.TagName == tag {
			r := r
			return &r
		}
	}
	return nil
}

// calls runs fn and returns the forge calls it made.
func (f *pubFixture) calls(fn func()) map[string]int64 {
	before := f.h.Env.Forge.Stats().Snapshot()
	fn()
	return forge.Counted(forge.StatsDelta(before, f.h.Env.Forge.Stats().Snapshot()))
}

func publishLanding(t *testing.T, s *core.Session, landed plumbing.Hash, pr *github.PullRequest) *publish.Outcome {
	t.Helper()
	out, err := publish.Publish(context.Background(), s, publish.NewAPI(s.Hub), landed, hubPull(pr))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPublishProposalMergeTagsAndReleases(t *testing.T) {
	f := newPubFixture(t, "")
	f.commit("drafts/basens/w1", "", func(files map[string][]byte) {
		files["basens/Kptfile"] = pubKptfile("basens")
		files["basens/ns.yaml"] = pubNamespace("basens")
		files["basens/cm.yaml"] = pubConfigMap("basens", "cfg", "1")
	})
	m1, pr1 := f.land("drafts/basens/w1", "Create basens")

	s := f.h.Open(t)
	var out *publish.Outcome
	calls := f.calls(func() { out = publishLanding(t, s, m1, pr1) })
	t.Logf("first publish: %d REST calls %v", forge.SumCounted(calls), calls)
	if got := out.Tags(); len(got) != 1 || got[0] != "basens/v1" {
		t.Fatalf("published %v", got)
	}
	// The approval re-check at landing: reviews, comments and bob's
	// permission; then the release (its approvers are the verdict's: no
	// second list of reviews); the tag is a git push (porchbot's signed
	// annotated tag); then the package index, a git push and one REST
	// call: index.yaml attached to the release.
	if n := forge.SumCounted(calls) - calls[indexAssetUpload]; n > 4 {
		t.Fatalf("publish made %d REST calls (want ≤ 4) beside the index's: %v", n, calls)
	}
	if calls["POST /repos/{owner}/{repo}/git/refs"] != 0 || calls["GIT receive-pack"] != 2 || calls["POST /repos/{owner}/{repo}/releases"] != 1 || calls[indexAssetUpload] != 1 {
		t.Fatalf("calls %v", calls)
	}
	f.wantTags(map[string]plumbing.Hash{"basens/v1": m1})
	rel := f.release("basens/v1")
	if rel == nil {
		t.Fatal("no release for basens/v1")
	}
	for _, want := range []string{"Added (2)", "v1/Namespace basens", "v1/ConfigMap basens/cfg", "@bob",
		fmt.Sprintf("#%d", pr1.GetNumber()), pr1.GetHTMLURL(), "First revision", "`ns.yaml`"} {
		if !strings.Contains(rel.Body, want) {
			t.Fatalf("release notes lack %q:\n%s", want, rel.Body)
		}
	}
	if rel.Name != "basens/v1" {
		t.Fatalf("release name %q", rel.Name)
	}

	// Second proposal: one resource changed, one removed, one added.
	f.commit("drafts/basens/w2", "", func(files map[string][]byte) {
		delete(files, "basens/ns.yaml")
		files["basens/cm.yaml"] = pubConfigMap("basens", "cfg", "2")
		files["basens/cm2.yaml"] = pubConfigMap("basens", "other", "x")
	})
	m2, pr2 := f.land("drafts/basens/w2", "Edit basens")
	s = f.h.Open(t)
	calls = f.calls(func() { out = publishLanding(t, s, m2, pr2) })
	t.Logf("second publish: %d REST calls %v", forge.SumCounted(calls), calls)
	if got := out.Tags(); len(got) != 1 || got[0] != "basens/v2" || forge.SumCounted(calls) > 5+1 || calls[indexAssetUpload] != 1 {
		t.Fatalf("published %v with calls %v", got, calls)
	}
	f.wantTags(map[string]plumbing.Hash{"basens/v1": m1, "basens/v2": m2})
	rel = f.release("basens/v2")
	for _, want := range []string{"Added (1)", "ConfigMap basens/other", "Changed (1)", "ConfigMap basens/cfg",
		"Removed (1)", "Namespace basens", "Previous revision: `basens/v1`", "Modified (1)"} {
		if !strings.Contains(rel.Body, want) {
			t.Fatalf("release notes lack %q:\n%s", want, rel.Body)
		}
	}

	// The same event again (a redelivery): nothing new, no tag call.
	calls = f.calls(func() { out = publishLanding(t, s, m2, pr2) })
	if len(out.Published) != 0 || len(out.AlreadyPublished) != 1 || out.AlreadyPublished[0].Tag != "basens/v2" {
		t.Fatalf("redelivery: %+v", out)
	}
	if forge.SumCounted(calls) != 0 {
		t.Fatalf("redelivery made calls: %v", calls)
	}
}

func TestPublishDirectPushAndResync(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"lifecycle:\n  releases: false\n")
	c1 := f.commit("main", "", func(files map[string][]byte) {
		files["app/Kptfile"] = pubKptfile("app")
		files["app/cm.yaml"] = pubConfigMap("app", "cfg", "1")
	})
	s := f.h.Open(t)
	var out *publish.Outcome
	calls := f.calls(func() { out = publishLanding(t, s, plumbing.NewHash(c1), nil) })
	t.Logf("direct push publish: %d REST calls %v", forge.SumCounted(calls), calls)
	if got := out.Tags(); len(got) != 1 || got[0] != "app/v1" {
		t.Fatalf("published %v", got)
	}
	if n := forge.SumCounted(calls); n != 1 { // find the pull request (none); the tag is a git push
		t.Fatalf("direct push publish made %d REST calls: %v", n, calls)
	}
	if f.release("app/v1") != nil {
		t.Fatal("releases are off, yet a release was made")
	}

	// Another direct push, webhook lost: the resync tags it.
	c2 := f.commit("main", "", func(files map[string][]byte) { files["app/cm.yaml"] = pubConfigMap("app", "cfg", "2") })
	s = f.h.Open(t)
	rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Published) != 1 || rep.Published[0].Tag != "app/v2" {
		t.Fatalf("resync published %+v", rep.Published)
	}
	f.wantTags(map[string]plumbing.Hash{"app/v1": plumbing.NewHash(c1), "app/v2": plumbing.NewHash(c2)})

	// The late webhook of c2: already done.
	out = publishLanding(t, s, plumbing.NewHash(c2), nil)
	if len(out.Published) != 0 || len(out.AlreadyPublished) != 1 {
		t.Fatalf("late webhook: %+v", out)
	}
}

// Three replicas, each with its own git cache, handle the same two merges
// in different orders at once: one tag per landing, in history order.
func TestPublishReplicasRaceOneTagPerLanding(t *testing.T) {
	f := newPubFixture(t, "")
	f.commit("drafts/race/w1", "", func(files map[string][]byte) {
		files["race/Kptfile"] = pubKptfile("race")
		files["race/a.yaml"] = pubConfigMap("race", "a", "1")
	})
	m1, pr1 := f.land("drafts/race/w1", "Create race")
	f.commit("drafts/race/w2", "", func(files map[string][]byte) { files["race/b.yaml"] = pubConfigMap("race", "b", "1") })
	m2, pr2 := f.land("drafts/race/w2", "Edit race")

	openers := []*core.Opener{f.h.Replica(t), f.h.Replica(t), f.h.Replica(t)}
	type step struct {
		landed plumbing.Hash
		pr     *github.PullRequest
		resync bool
	}
	orders := [][]step{
		{{landed: m2, pr: pr2}, {landed: m1, pr: pr1}},
		{{landed: m1, pr: pr1}, {landed: m2, pr: pr2}},
		{{resync: true}, {landed: m2, pr: pr2}},
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		races int
		made  []string
	)
	errs := make(chan error, len(openers))
	start := make(chan struct{})
	for i, o := range openers {
		wg.Add(1)
		go func(o *core.Opener, steps []step) {
			defer wg.Done()
			s, err := o.Open(f.ctx, f.h.Catalog())
			if err != nil {
				errs <- err
				return
			}
			<-start
			for _, st := range steps {
				var out *publish.Outcome
				if st.resync {
					rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
					if err != nil {
						errs <- err
						return
					}
					out = &publish.Outcome{Published: rep.Published, Races: rep.Races}
				} else if out, err = publish.Publish(f.ctx, s, publish.NewAPI(s.Hub), st.landed, hubPull(st.pr)); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				races += out.Races
				made = append(made, out.Tags()...)
				mu.Unlock()
			}
		}(o, orders[i])
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Strings(made)
	t.Logf("tags made by the replicas: %v; lost races: %d", made, races)
	if strings.Join(made, ",") != "race/v1,race/v2" {
		t.Fatalf("each tag must be made exactly once, got %v", made)
	}
	f.wantTags(map[string]plumbing.Hash{"race/v1": m1, "race/v2": m2})
	if n := len(f.h.Env.Forge.Releases("acme/catalog")); n != 2 {
		t.Fatalf("%d releases, want 2", n)
	}
}

// Two pull requests edit different files of one package; the second merge
// combines both, which nobody approved: no tag, a comment, a draft with
// the merged state. Merging that draft publishes it.
func TestPublishRefusesWhatWasNotReviewed(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"")
	base := f.commit("main", "", func(files map[string][]byte) {
		files["net/Kptfile"] = pubKptfile("net")
		files["net/a.yaml"] = pubConfigMap("net", "a", "1")
		files["net/b.yaml"] = pubConfigMap("net", "b", "1")
	})
	s := f.h.Open(t)
	if got := publishLanding(t, s, plumbing.NewHash(base), nil).Tags(); len(got) != 1 || got[0] != "net/v1" {
		t.Fatalf("seed published %v", got)
	}
	f.commit("drafts/net/wa", base, func(files map[string][]byte) { files["net/a.yaml"] = pubConfigMap("net", "a", "2") })
	f.commit("drafts/net/wb", base, func(files map[string][]byte) { files["net/b.yaml"] = pubConfigMap("net", "b", "2") })
	prA, prB := f.propose("drafts/net/wa", "Edit a"), f.propose("drafts/net/wb", "Edit b")
	f.approve(prA.GetNumber())
	f.approve(prB.GetNumber())
	m1, prA := f.merge(prA.GetNumber())
	s = f.h.Open(t)
	if got := publishLanding(t, s, m1, prA).Tags(); len(got) != 1 || got[0] != "net/v2" {
		t.Fatalf("first merge published %v", got)
	}
	m2, prB := f.merge(prB.GetNumber())
	s = f.h.Open(t)
	out := publishLanding(t, s, m2, prB)
	if len(out.Published) != 0 || len(out.Refused) != 1 {
		t.Fatalf("second merge: %+v", out)
	}
	r := out.Refused[0]
	wantBranch := "drafts/net/merged-" + m2.String()[:7]
	if r.DraftBranch != wantBranch || !r.Commented || strings.Join(r.Differs, ",") != "a.yaml" {
		t.Fatalf("refusal %+v", r)
	}
	cs := f.comments(prB.GetNumber())
	if len(cs) != 1 || !strings.Contains(cs[0], "Not published") || !strings.Contains(cs[0], wantBranch) ||
		!strings.Contains(cs[0], "/porch propose net/merged-"+m2.String()[:7]) {
		t.Fatalf("comments %q", cs)
	}
	draft := f.head(wantBranch)
	if draft == "" {
		t.Fatal("no draft branch")
	}
	merged, drafted := f.tree(m2.String()), f.tree(draft)
	for _, p := range []string{"net/Kptfile", "net/a.yaml", "net/b.yaml"} {
		if string(merged[p]) != string(drafted[p]) {
			t.Fatalf("draft %s differs from the merge", p)
		}
	}
	f.wantTags(map[string]plumbing.Hash{"net/v1": plumbing.NewHash(base), "net/v2": m1})

	// The same event on another replica: no second comment, no second draft.
	s2, err := f.h.Replica(t).Open(f.ctx, f.h.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	if out := publishLanding(t, s2, m2, prB); len(out.Refused) != 1 || out.Refused[0].Commented {
		t.Fatalf("replayed refusal: %+v", out.Refused)
	}
	if n := len(f.comments(prB.GetNumber())); n != 1 {
		t.Fatalf("%d comments after the replay", n)
	}

	// Review the merged state and merge it; the webhook is lost, the
	// resync publishes the re-review merge.
	m3, prC := f.land(wantBranch, "Review the merged net")
	s = f.h.Open(t)
	rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Published) != 1 || rep.Published[0].Tag != "net/v3" || rep.Published[0].Commit != m3 {
		t.Fatalf("resync after the review: %+v", rep.Published)
	}
	f.wantTags(map[string]plumbing.Hash{"net/v1": plumbing.NewHash(base), "net/v2": m1, "net/v3": m3})
	if out := publishLanding(t, s, m3, prC); len(out.Published) != 0 || len(out.AlreadyPublished) != 1 {
		t.Fatalf("late event of the review merge: %+v", out)
	}
}

// The re-review merge's own event publishes it too.
func TestPublishReviewedDraftOnMerge(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"lifecycle:\n  releases: false\n")
	base := f.commit("main", "", func(files map[string][]byte) {
		files["net/Kptfile"] = pubKptfile("net")
		files["net/a.yaml"] = pubConfigMap("net", "a", "1")
		files["net/b.yaml"] = pubConfigMap("net", "b", "1")
	})
	f.commit("drafts/net/wa", base, func(files map[string][]byte) { files["net/a.yaml"] = pubConfigMap("net", "a", "2") })
	f.commit("drafts/net/wb", base, func(files map[string][]byte) { files["net/b.yaml"] = pubConfigMap("net", "b", "2") })
	prA, prB := f.propose("drafts/net/wa", "Edit a"), f.propose("drafts/net/wb", "Edit b")
	f.approve(prA.GetNumber())
	f.approve(prB.GetNumber())
	m1, prA := f.merge(prA.GetNumber())
	m2, prB := f.merge(prB.GetNumber())
	s := f.h.Open(t)
	// m1's event comes first: the seed (a direct push) becomes v1, m1 v2.
	if got := publishLanding(t, s, m1, prA).Tags(); strings.Join(got, ",") != "net/v1,net/v2" {
		t.Fatalf("published %v", got)
	}
	out := publishLanding(t, s, m2, prB)
	if len(out.Refused) != 1 || out.Refused[0].DraftBranch == "" {
		t.Fatalf("refusal %+v", out)
	}
	m3, prC := f.land(out.Refused[0].DraftBranch, "Review")
	s = f.h.Open(t)
	if got := publishLanding(t, s, m3, prC).Tags(); len(got) != 1 || got[0] != "net/v3" {
		t.Fatalf("review merge published %v", got)
	}
	f.wantTags(map[string]plumbing.Hash{"net/v1": plumbing.NewHash(base), "net/v2": m1, "net/v3": m3})
}

func TestPublishOnNeverWaitsForPublishPackage(t *testing.T) {
	f := newPubFixture(t, "lifecycle:\n  publishOn: never\n")
	f.commit("drafts/manual/w1", "", func(files map[string][]byte) {
		files["manual/Kptfile"] = pubKptfile("manual")
		files["manual/cm.yaml"] = pubConfigMap("manual", "cfg", "1")
	})
	m1, pr1 := f.land("drafts/manual/w1", "Create manual")
	s := f.h.Open(t)
	out := publishLanding(t, s, m1, pr1)
	if out.Skipped == "" || len(out.Published) != 0 {
		t.Fatalf("publishOn never published on merge: %+v", out)
	}
	if _, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{}); err != nil {
		t.Fatal(err)
	}
	f.wantTags(map[string]plumbing.Hash{})

	var err error
	calls := f.calls(func() {
		out, err = publish.PublishPackage(f.ctx, s, publish.NewAPI(s.Hub), "manual", s.DeploymentHead)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("/porch publish: %d REST calls %v", forge.SumCounted(calls), calls)
	if got := out.Tags(); len(got) != 1 || got[0] != "manual/v1" {
		t.Fatalf("PublishPackage published %v", got)
	}
	f.wantTags(map[string]plumbing.Hash{"manual/v1": m1})
	if rel := f.release("manual/v1"); rel == nil || !strings.Contains(rel.Body, "@bob") {
		t.Fatalf("release %+v", rel)
	}
	// Again: nothing to do.
	out, err = publish.PublishPackage(f.ctx, s, publish.NewAPI(s.Hub), "manual", s.DeploymentHead)
	if err != nil || len(out.Published) != 0 || len(out.AlreadyPublished) != 1 {
		t.Fatalf("second PublishPackage: %+v %v", out, err)
	}
	if _, err := publish.PublishPackage(f.ctx, s, publish.NewAPI(s.Hub), "bad..name", s.DeploymentHead); err == nil {
		t.Fatal("an invalid package name was accepted")
	}
	if _, err := publish.PublishPackage(f.ctx, s, publish.NewAPI(s.Hub), "nope", s.DeploymentHead); !errors.Is(err, publish.ErrNoPackage) {
		t.Fatalf("publishing a missing package: %v", err)
	}
}

func TestLandingSubpackageCountsForItsPackage(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"packages:\n  root: pkgs\nlifecycle:\n  releases: false\n")
	c1 := f.commit("main", "", func(files map[string][]byte) {
		files["pkgs/app/Kptfile"] = pubKptfile("app")
		files["pkgs/app/sub/Kptfile"] = pubKptfile("sub")
		files["pkgs/app/sub/cm.yaml"] = pubConfigMap("x", "sub", "1")
		files["pkgs/lib/Kptfile"] = pubKptfile("lib")
		files["outside/Kptfile"] = pubKptfile("outside")
	})
	c2 := f.commit("main", "", func(files map[string][]byte) {
		files["pkgs/app/sub/cm.yaml"] = pubConfigMap("x", "sub", "2")
		files["README.md"] = []byte("changed\n")
		files["outside/x.yaml"] = pubNamespace("x")
	})
	c3 := f.commit("main", "", func(files map[string][]byte) {
		for p := range files {
			if strings.HasPrefix(p, "pkgs/lib/") {
				delete(files, p)
			}
		}
		files["pkgs/new/Kptfile"] = pubKptfile("new")
	})
	s := f.h.Open(t)
	ctx := f.ctx
	describe := func(c string) string {
		ls, err := core.ChangedPackages(ctx, s, plumbing.NewHash(c))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, l := range ls {
			parts = append(parts, l.Package+":"+string(l.Kind))
		}
		return strings.Join(parts, ",")
	}
	if got := describe(c1); got != "app:created,lib:created" {
		t.Fatalf("c1 changed %s", got)
	}
	if got := describe(c2); got != "app:changed" {
		t.Fatalf("c2 changed %s (a subpackage change is its top-level package's)", got)
	}
	if got := describe(c3); got != "lib:deleted,new:created" {
		t.Fatalf("c3 changed %s", got)
	}

	tags, err := core.ReadRevisionTags(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := core.PendingLandings(ctx, s, "app", plumbing.NewHash(c3), tags)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Pending) != 2 || hist.Pending[0].Commit.String() != c1 || hist.Pending[1].Commit.String() != c2 {
		t.Fatalf("pending landings of app: %+v", hist.Pending)
	}
	all, err := core.UntaggedLandings(ctx, s, plumbing.NewHash(c3), tags)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range all {
		names = append(names, fmt.Sprintf("%s:%d", h.Package, len(h.Pending)))
	}
	if strings.Join(names, ",") != "app:2,new:1" {
		t.Fatalf("untagged landings %v", names)
	}

	// Publishing c3 tags the package it created; app's landings wait for
	// their own events (or the resync), in order.
	out := publishLanding(t, s, plumbing.NewHash(c3), nil)
	if got := out.Tags(); strings.Join(got, ",") != "new/v1" || strings.Join(out.Deleted, ",") != "lib" {
		t.Fatalf("publish c3: %+v", out)
	}
	out = publishLanding(t, s, plumbing.NewHash(c2), nil)
	if got := out.Tags(); strings.Join(got, ",") != "app/v1,app/v2" {
		t.Fatalf("publish c2: %v", got)
	}
	f.wantTags(map[string]plumbing.Hash{"new/v1": plumbing.NewHash(c3), "app/v1": plumbing.NewHash(c1), "app/v2": plumbing.NewHash(c2)})
	// The late event of c1: app's landing is tagged already; lib, created
	// there and deleted since, gets the revision in-order handling would
	// have given it (deletions keep revisions).
	out = publishLanding(t, s, plumbing.NewHash(c1), nil)
	if strings.Join(out.Tags(), ",") != "lib/v1" || len(out.AlreadyPublished) != 1 || out.AlreadyPublished[0].Tag != "app/v1" || out.Races != 0 {
		t.Fatalf("publish c1 late: %+v", out)
	}
}

func TestLandingOlderThanLatestRevisionIsNotTagged(t *testing.T) {
	f := newPubFixture(t, "lifecycle:\n  releases: false\n")
	c1 := f.commit("main", "", func(files map[string][]byte) { files["p/Kptfile"] = pubKptfile("p") })
	c2 := f.commit("main", "", func(files map[string][]byte) { files["p/x.yaml"] = pubNamespace("x") })
	// Someone tagged c2 as v1 by hand (or an old bot skipped c1).
	if _, _, err := f.alice.Git.CreateRef(f.ctx, pubOwner, pubRepo, &github.Reference{
		Ref: github.String("refs/tags/p/v1"), Object: &github.GitObject{SHA: github.String(c2)}}); err != nil {
		t.Fatal(err)
	}
	s := f.h.Open(t)
	out := publishLanding(t, s, plumbing.NewHash(c1), nil)
	if len(out.Published) != 0 || strings.Join(out.Superseded, ",") != "p" {
		t.Fatalf("publishing an older landing: %+v", out)
	}
	f.wantTags(map[string]plumbing.Hash{"p/v1": plumbing.NewHash(c2)})
}

func TestPublishSkipsOtherBranchesAndUnmergedPRs(t *testing.T) {
	f := newPubFixture(t, "")
	c := f.commit("drafts/x/w", "", func(files map[string][]byte) { files["x/Kptfile"] = pubKptfile("x") })
	pr := f.propose("drafts/x/w", "x")
	s := f.h.Open(t)
	if out := publishLanding(t, s, plumbing.NewHash(c), pr); out.Skipped == "" {
		t.Fatalf("an open pull request was published: %+v", out)
	}
	if out := publishLanding(t, s, plumbing.NewHash(c), nil); out.Skipped == "" || !strings.Contains(out.Skipped, "first-parent") {
		t.Fatalf("a commit off the deployment branch was published: %+v", out)
	}
	f.wantTags(map[string]plumbing.Hash{})
}

// A published revision is porchbot's annotated tag with its signed record:
// the repository, package, revision, commit and approvers; a copy of its
// message on another tag, or the same tag judged under another key, is no
// revision.
func TestPublishedTagCarriesItsSignedRecord(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"lifecycle:\n  releases: false\n")
	c := f.commit("main", "", func(files map[string][]byte) { files["x/Kptfile"] = pubKptfile("x") })
	s := f.h.Open(t)
	if out := publishLanding(t, s, plumbing.NewHash(c), nil); strings.Join(out.Tags(), ",") != "x/v1" {
		t.Fatalf("published %v", out.Tags())
	}
	ref, _, err := f.alice.Git.GetRef(f.ctx, pubOwner, pubRepo, "tags/x/v1")
	if err != nil || ref.GetObject().GetType() != "tag" {
		t.Fatalf("x/v1: %+v %v, want an annotated tag", ref.GetObject(), err)
	}
	tag, _, err := f.alice.Git.GetTag(f.ctx, pubOwner, pubRepo, ref.GetObject().GetSHA())
	if err != nil {
		t.Fatal(err)
	}
	key := core.RecordKey(nil)
	rec, err := revrecord.Verify(key, tag.GetMessage(), pubOwner+"/"+pubRepo, "x", 1, c)
	if err != nil || rec.Commit != c {
		t.Fatalf("record of x/v1: %+v %v\n%s", rec, err, tag.GetMessage())
	}
	if _, err := revrecord.Verify(core.RecordKey([]byte("another secret")), tag.GetMessage(), pubOwner+"/"+pubRepo, "x", 1, c); !errors.Is(err, revrecord.ErrSignature) {
		t.Fatalf("under another key: %v", err)
	}
	for _, other := range []struct {
		repo, pkg string
		n         int
	}{{"acme/other", "x", 1}, {pubOwner + "/" + pubRepo, "y", 1}, {pubOwner + "/" + pubRepo, "x", 2}} {
		if _, err := revrecord.Verify(key, tag.GetMessage(), other.repo, other.pkg, other.n, c); !errors.Is(err, revrecord.ErrSubject) {
			t.Fatalf("copied to %+v: %v", other, err)
		}
	}
	forged := strings.Replace(tag.GetMessage(), `"revision":1`, `"revision":2`, 1)
	if _, err := revrecord.Verify(key, forged, pubOwner+"/"+pubRepo, "x", 2, c); !errors.Is(err, revrecord.ErrSignature) {
		t.Fatalf("altered record: %v", err)
	}
}

// Squash merges land single-parent commits: the pull request found for the
// commit says what was approved, with or without the event.
func TestPublishSquashMergesCompareWithTheApprovedHead(t *testing.T) {
	f := newPubFixture(t, pubNoApproval+"lifecycle:\n  releases: false\n")
	base := f.commit("main", "", func(files map[string][]byte) {
		files["sq/Kptfile"] = pubKptfile("sq")
		files["sq/a.yaml"] = pubConfigMap("sq", "a", "1")
		files["sq/b.yaml"] = pubConfigMap("sq", "b", "1")
	})
	f.commit("drafts/sq/wa", base, func(files map[string][]byte) { files["sq/a.yaml"] = pubConfigMap("sq", "a", "2") })
	f.commit("drafts/sq/wb", base, func(files map[string][]byte) { files["sq/b.yaml"] = pubConfigMap("sq", "b", "2") })
	prA, prB := f.propose("drafts/sq/wa", "Edit a"), f.propose("drafts/sq/wb", "Edit b")
	f.approve(prA.GetNumber())
	f.approve(prB.GetNumber())
	squash := func(n int) (plumbing.Hash, *github.PullRequest) {
		res, _, err := f.alice.PullRequests.Merge(f.ctx, pubOwner, pubRepo, n, "", &github.PullRequestOptions{MergeMethod: "squash"})
		if err != nil {
			t.Fatal(err)
		}
		pr, _, err := f.alice.PullRequests.Get(f.ctx, pubOwner, pubRepo, n)
		if err != nil {
			t.Fatal(err)
		}
		return plumbing.NewHash(res.GetSHA()), pr
	}
	m1, prA := squash(prA.GetNumber())
	m2, prB := squash(prB.GetNumber())
	s := f.h.Open(t)
	// No event at all: the resync finds each commit's pull request.
	rep, err := resync.Repository(f.ctx, s, resync.NewAPI(s.Hub), resync.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Published {
		got = append(got, fmt.Sprintf("%s@%s#%d", r.Tag, r.Commit.String()[:7], r.PR))
	}
	want := []string{"sq/v1@" + base[:7] + "#0", fmt.Sprintf("sq/v2@%s#%d", m1.String()[:7], prA.GetNumber())}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("resync published %v, want %v", got, want)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Commit != m2 || rep.Refused[0].PR != prB.GetNumber() {
		t.Fatalf("resync refused %+v", rep.Refused)
	}
	// The event of the second squash, late: same decision, with a draft.
	out := publishLanding(t, s, m2, prB)
	if len(out.Published) != 0 || len(out.Refused) != 1 || out.Refused[0].DraftBranch == "" || !out.Refused[0].Commented {
		t.Fatalf("late event: %+v", out)
	}
}
