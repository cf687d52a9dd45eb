package rendercheck_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
)

// Helpers of the render and config check tests (prefixed rt to stay clear
// of other test files' helpers).

// rtCatalog reads testdata/forge/catalog/<dir>, keyed by repository path.
func rtCatalog(t *testing.T, dirs ...string) map[string][]byte {
	t.Helper()
	root := filepath.Join("..", "..", "..", "testdata", "forge", "catalog")
	out := map[string][]byte{}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// rtWith is base with files replaced (nil deletes).
func rtWith(base map[string][]byte, changes map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// rtPushDraft makes branch (from main, if absent) hold exactly files, as alice.
func rtPushDraft(t *testing.T, h *lifecycletest.Rig, branch string, files map[string][]byte) plumbing.Hash {
	t.Helper()
	ctx := context.Background()
	gh := h.User(forgetest.AliceToken)
	if _, _, err := gh.Git.GetRef(ctx, "acme", "catalog", "heads/"+branch); err != nil {
		main, _, err := gh.Git.GetRef(ctx, "acme", "catalog", "heads/main")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{
			Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: main.Object.SHA}}); err != nil {
			t.Fatal(err)
		}
	}
	alice, _ := h.Env.Forge.Account("alice")
	sha, err := h.Env.Forge.CommitFiles("acme/catalog", branch, files, "edit "+branch, alice)
	if err != nil {
		t.Fatal(err)
	}
	return plumbing.NewHash(sha)
}

// rtAnnotations lists a check run's annotations.
func rtAnnotations(t *testing.T, h *lifecycletest.Rig, id int64) []*github.CheckRunAnnotation {
	t.Helper()
	anns, _, err := h.User(forgetest.AliceToken).Checks.ListCheckRunAnnotations(context.Background(), "acme", "catalog",
		id, &github.ListOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	return anns
}

// rtCounter measures the REST calls and git transport operations of a step.
type rtCounter struct {
	h      *lifecycletest.Rig
	forge  map[string]int64
	gitOps gitstore.Stats
}

func rtCount(h *lifecycletest.Rig) *rtCounter {
	return &rtCounter{h: h, forge: h.Env.Forge.Stats().Snapshot(), gitOps: h.Store.Stats()}
}

// done returns the REST calls, the forge's per-endpoint delta, and the
// store's fetches and pushes since rtCount.
//
// The forge counts a call once its handler has returned, which may be just
// after the client has the answer: wait for the counts to settle.
func (c *rtCounter) done() (rest int64, delta map[string]int64, fetches, pushes int64) {
	snap := c.h.Env.Forge.Stats().Snapshot()
	for range 20 {
		time.Sleep(10 * time.Millisecond)
		next := c.h.Env.Forge.Stats().Snapshot()
		if maps.Equal(next, snap) {
			break
		}
		snap = next
	}
	delta = forge.Counted(forge.StatsDelta(c.forge, snap))
	g := c.h.Store.Stats()
	return forge.SumCounted(delta), delta, g.Fetches - c.gitOps.Fetches, g.Pushes - c.gitOps.Pushes
}

// rtRenderLocally renders files (repository paths) of the package at dir
// with the engine directly: what the bot must push.
func rtRenderLocally(t *testing.T, files map[string][]byte, dir string) map[string][]byte {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for p, b := range files {
		if strings.HasPrefix(p, dir+"/") {
			if err := fs.WriteFile("/"+p, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := render.Render(context.Background(), fs, "/"+dir, render.Options{}); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	err := fs.Walk("/"+dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := fs.ReadFile(p)
		out[strings.TrimPrefix(p, "/"+dir+"/")] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rtSameFiles compares two package trees.
func rtSameFiles(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if string(got[k]) != string(want[k]) {
			t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", k, got[k], want[k])
		}
	}
}

// upfEdge is network/upf with its namespace changed: rendering changes
// every resource.
func upfEdge(t *testing.T, ns string) map[string][]byte {
	base := rtCatalog(t, "network/upf")
	kf := strings.Replace(string(base["network/upf/Kptfile"]), "namespace: upf", "namespace: "+ns, 1)
	return rtWith(base, map[string][]byte{"network/upf/Kptfile": []byte(kf)})
}

func TestRenderDraftPushesOneRenderCommit(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "network/upf", "basens"))
	const branch = "drafts/network/upf/w1"
	draft := rtWith(rtCatalog(t, "network/upf", "basens"), upfEdge(t, "edge"))
	pushed := rtPushDraft(t, h, branch, draft)

	c := rtCount(h)
	s := h.Open(t)
	rest, delta, fetches, pushes := c.done()
	t.Logf("session open (not part of the step): %d REST call(s) %v; git: %d fetch(es), %d push(es)", rest, delta, fetches, pushes)
	c = rtCount(h)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	rest, delta, fetches, pushes = c.done()
	t.Logf("draft push with a render commit: %d REST call(s) %v; git: %d fetch(es), %d push(es)", rest, delta, fetches, pushes)
	// the attempt's in_progress check on the pushed head, its completion,
	// the check on the Render commit
	if rest != 3 || fetches != 0 || pushes != 1 {
		t.Errorf("want 3 REST calls, 0 fetches and 1 push; got %d %v, %d, %d", rest, delta, fetches, pushes)
	}
	if !out.Pushed || out.Conclusion != core.ConclusionSuccess || out.Rendered != pushed || out.Head == pushed ||
		out.Package != "network/upf" || out.Workspace != "w1" || out.Attempts != 1 {
		t.Fatalf("outcome %+v", out)
	}
	// the Kptfile records the render (kpt v1.0.0-beta.67, the default release)
	if want := []string{"Kptfile", "deployment.yaml", "service.yaml"}; strings.Join(out.Differs, ",") != strings.Join(want, ",") {
		t.Errorf("differs %v, want %v", out.Differs, want)
	}

	// One commit on top of alice's, by the bot, with Porch's trailer.
	gh := h.User(forgetest.AliceToken)
	br, _, err := gh.Repositories.GetBranch(ctx, "acme", "catalog", branch, 0)
	if err != nil {
		t.Fatal(err)
	}
	if br.GetCommit().GetSHA() != out.Head.String() {
		t.Fatalf("branch at %s, outcome head %s", br.GetCommit().GetSHA(), out.Head)
	}
	cm, _, err := gh.Git.GetCommit(ctx, "acme", "catalog", out.Head.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != pushed.String() {
		t.Fatalf("render commit parents %v, want %s", cm.Parents, pushed)
	}
	if !strings.HasPrefix(cm.GetMessage(), "Render network/upf\n") || cm.GetAuthor().GetName() != "porchbot[bot]" ||
		!strings.Contains(cm.GetMessage(), "\n- modified deployment.yaml\n- modified service.yaml\n") {
		t.Errorf("commit %q by %q", cm.GetMessage(), cm.GetAuthor().GetName())
	}
	tr, ok := packages.FindTrailer(cm.GetMessage())
	if !ok || tr.Package != "network/upf" || tr.WorkspaceName != "w1" || tr.Revision != "0" || tr.Task == nil ||
		tr.Task.Type != packages.TaskRender {
		t.Errorf("trailer %+v in %q", tr, cm.GetMessage())
	}

	// The content is the render output; the digest is its tree.
	s2 := h.Open(t)
	got, err := s2.Git.ReadTree(ctx, out.Head, "network/upf")
	if err != nil {
		t.Fatal(err)
	}
	want := rtRenderLocally(t, draft, "network/upf")
	rtSameFiles(t, got, want)
	if !strings.Contains(string(got["deployment.yaml"]), "namespace: edge") {
		t.Errorf("deployment not rendered:\n%s", got["deployment.yaml"])
	}
	if d, _ := s2.Git.TreeHash(ctx, out.Head, "network/upf"); d != out.Digest || d.IsZero() {
		t.Errorf("digest %s, tree %s", out.Digest, d)
	}
	// Nothing else changed on the branch.
	if basens, _ := s2.Git.TreeHash(ctx, out.Head, "basens"); basens.IsZero() {
		t.Error("basens lost")
	}

	// The check run is on the render commit, with the function table.
	run := h.OneCheck(t, out.Head, core.RenderCheckName)
	if run.GetConclusion() != "success" || run.GetID() != out.CheckRunID {
		t.Fatalf("check run %s %d, outcome %d", run.GetConclusion(), run.GetID(), out.CheckRunID)
	}
	text := run.GetOutput().GetText()
	for _, w := range []string{"| Package | Function | Kind | Status | Duration | Results |",
		"`gcr.io/kpt-fn/set-labels:v0.2.0`", "`gcr.io/kpt-fn/set-namespace:v0.4.1`", "mutator", "✅ passed"} {
		if !strings.Contains(text, w) {
			t.Errorf("check text lacks %q:\n%s", w, text)
		}
	}
	if !strings.Contains(run.GetOutput().GetTitle(), "pushed 3 changed file(s)") {
		t.Errorf("title %q", run.GetOutput().GetTitle())
	}
	if old := h.OneCheck(t, pushed, core.RenderCheckName); old.GetStatus() != "completed" || old.GetConclusion() != "success" {
		t.Errorf("the render attempt on the pushed head: %s %s", old.GetStatus(), old.GetConclusion())
	}

	// The bot's own push comes back as an event: a no-op render, no commit,
	// no loop.
	c = rtCount(h)
	again, err := rendercheck.RenderDraft(ctx, s2, s2.Hub, rendercheck.RenderRequest{Branch: branch, Head: out.Head})
	if err != nil {
		t.Fatal(err)
	}
	rest, delta, fetches, pushes = c.done()
	t.Logf("draft push, already rendered: %d REST call(s) %v; git: %d fetch(es), %d push(es)", rest, delta, fetches, pushes)
	if again.Pushed || again.Head != out.Head || again.Conclusion != core.ConclusionSuccess || rest != 2 || pushes != 0 {
		t.Fatalf("second render: %+v (REST %d, pushes %d)", again, rest, pushes)
	}
	if again.Digest != out.Digest {
		t.Errorf("digest changed: %s vs %s", again.Digest, out.Digest)
	}
}

func TestRenderDraftAlreadyRenderedPushesNothing(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "network/upf"))
	const branch = "drafts/network/upf/same"
	files := rtCatalog(t, "network/upf")
	files["network/upf/README.md"] = []byte("notes\n")
	pushed := rtPushDraft(t, h, branch, files)
	s := h.Open(t)
	c := rtCount(h)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	rest, _, fetches, pushes := c.done()
	if out.Pushed || out.Head != pushed || out.Conclusion != core.ConclusionSuccess || len(out.Differs) != 0 {
		t.Fatalf("outcome %+v", out)
	}
	if rest != 2 || fetches != 0 || pushes != 0 {
		t.Errorf("REST %d, fetches %d, pushes %d", rest, fetches, pushes)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	if run.GetConclusion() != "success" || run.GetOutput().GetTitle() != "network/upf is rendered" {
		t.Errorf("check %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
}

func TestRenderDraftCheckModeListsDifferingFiles(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	base := rtCatalog(t, "network/upf")
	base[".github/porchbot.yaml"] = []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nrender:\n  onDraftPush: check\n")
	h.Seed(t, base)
	const branch = "drafts/network/upf/chk"
	pushed := rtPushDraft(t, h, branch, rtWith(base, upfEdge(t, "edge")))
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	if out.Pushed || out.Head != pushed || out.Conclusion != core.ConclusionFailure {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	sum := run.GetOutput().GetSummary()
	for _, w := range []string{"`network/upf/Kptfile` (modified)", "`network/upf/deployment.yaml` (modified)", "`network/upf/service.yaml` (modified)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
	if !strings.Contains(run.GetOutput().GetTitle(), "not rendered: 3 file(s) differ") {
		t.Errorf("title %q", run.GetOutput().GetTitle())
	}
	anns := rtAnnotations(t, h, run.GetID())
	var paths []string
	for _, a := range anns {
		if a.GetAnnotationLevel() == "failure" {
			paths = append(paths, a.GetPath())
		}
	}
	sort.Strings(paths)
	if strings.Join(paths, ",") != "network/upf/Kptfile,network/upf/deployment.yaml,network/upf/service.yaml" {
		t.Errorf("failure annotations on %v", paths)
	}
	// Nothing was pushed.
	br, _, _ := h.User(forgetest.AliceToken).Repositories.GetBranch(ctx, "acme", "catalog", branch, 0)
	if br.GetCommit().GetSHA() != pushed.String() {
		t.Error("check mode must not push")
	}
}

func TestRenderDraftLeaseRaceRendersTheNewHead(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "network/upf"))
	const branch = "drafts/network/upf/race"
	first := rtPushDraft(t, h, branch, upfEdge(t, "edge"))
	// The bot's session fetched first ...
	s := h.Open(t)
	// ... then alice pushes again before the bot's push: its lease on
	// `first` is stale.
	aliceHead := rtPushDraft(t, h, branch, upfEdge(t, "edge-2"))

	c := rtCount(h)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: first})
	if err != nil {
		t.Fatal(err)
	}
	rest, delta, fetches, pushes := c.done()
	t.Logf("lease race: %d REST call(s) %v; git: %d fetch(es), %d push(es)", rest, delta, fetches, pushes)
	if out.Attempts != 2 || !out.Pushed || out.Rendered != aliceHead || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("outcome %+v (alice %s)", out, aliceHead)
	}
	// two attempts (each created and completed, the first as superseded)
	// and the check on the Render commit
	if rest != 5 || fetches != 1 || pushes != 2 {
		t.Errorf("REST %d, fetches %d, pushes %d", rest, fetches, pushes)
	}
	cm, _, err := h.User(forgetest.AliceToken).Git.GetCommit(ctx, "acme", "catalog", out.Head.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != aliceHead.String() {
		t.Fatalf("the render commit must sit on alice's commit %s, parents %v", aliceHead, cm.Parents)
	}
	s2 := h.Open(t)
	dep, ok, err := s2.ReadFile(ctx, out.Head, "network/upf/deployment.yaml")
	if err != nil || !ok || !strings.Contains(string(dep), "namespace: edge-2") {
		t.Errorf("alice's version must be the one rendered:\n%s (%v)", dep, err)
	}
	if len(h.CheckRuns(t, out.Head, core.RenderCheckName)) != 1 {
		t.Error("one check run on the final head")
	}
}

func TestRenderDraftLeaseRaceGivesUpAfterMaxAttempts(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "network/upf"))
	const branch = "drafts/network/upf/busy"
	first := rtPushDraft(t, h, branch, upfEdge(t, "edge"))
	s := h.Open(t)
	aliceHead := rtPushDraft(t, h, branch, upfEdge(t, "edge-2"))
	_, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: first,
		Options: rendercheck.RenderOptions{MaxAttempts: 1}})
	if !errors.Is(err, gitstore.ErrLeaseBroken) {
		t.Fatalf("want ErrLeaseBroken, got %v", err)
	}
	br, _, _ := h.User(forgetest.AliceToken).Repositories.GetBranch(ctx, "acme", "catalog", branch, 0)
	if br.GetCommit().GetSHA() != aliceHead.String() {
		t.Fatalf("alice's commit was overwritten: branch at %s", br.GetCommit().GetSHA())
	}
}

func TestRenderDraftMissingPackageIsNeutral(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, rtCatalog(t, "basens"))
	const branch = "drafts/ghost/w1"
	pushed := rtPushDraft(t, h, branch, rtWith(rtCatalog(t, "basens"), map[string][]byte{"ghost/README.md": []byte("no Kptfile\n")}))
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionNeutral || out.Pushed || !out.Digest.IsZero() {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	if run.GetConclusion() != "neutral" || !strings.Contains(run.GetOutput().GetTitle(), "ghost not found") {
		t.Errorf("check %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
}

func TestRenderDraftDeletedBranchDoesNothing(t *testing.T) {
	h := lifecycletest.New(t)
	h.Seed(t, rtCatalog(t, "basens"))
	s := h.Open(t)
	c := rtCount(h)
	out, err := rendercheck.RenderDraft(context.Background(), s, s.Hub,
		rendercheck.RenderRequest{Branch: "drafts/basens/gone"})
	if err != nil || out.CheckRunID != 0 || out.Conclusion != "" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if rest, _, _, _ := c.done(); rest != 0 {
		t.Errorf("%d REST calls for a deleted branch", rest)
	}
	if _, err := rendercheck.RenderDraft(context.Background(), s, s.Hub,
		rendercheck.RenderRequest{Branch: "feature/x"}); !errors.Is(err, packages.ErrNotDraft) {
		t.Errorf("a non-draft branch: %v", err)
	}
}

// rtKptfile is a Kptfile named name with the given pipeline (YAML, indented
// under "pipeline:").
// rtRenderNewDraft seeds a repository with seed (nil: a README), pushes
// branch with files on it and renders the draft's head once: the outcome
// and the head pushed.
func rtRenderNewDraft(t *testing.T, h *lifecycletest.Rig, seed map[string][]byte, branch string, files map[string][]byte) (*rendercheck.RenderOutcome, plumbing.Hash) {
	t.Helper()
	if seed == nil {
		seed = map[string][]byte{"README.md": []byte("x\n")}
	}
	h.Seed(t, seed)
	pushed := rtPushDraft(t, h, branch, rtWith(seed, files))
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(context.Background(), s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	return out, pushed
}

func rtKptfile(name, pipeline string) []byte {
	return []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name +
		"\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\npipeline:\n" + pipeline)
}

const rtDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: app
          image: nginx:1.25
`

func TestRenderDraftFailingValidatorAnnotatesTheKptfile(t *testing.T) {
	h := lifecycletest.New(t)
	out, pushed := rtRenderNewDraft(t, h, nil, "drafts/apps/web/w1", map[string][]byte{
		"apps/web/Kptfile": rtKptfile("web", `  mutators:
    - image: set-labels:v0.2.0
      configMap:
        app: web
  validators:
    - image: gcr.io/kpt-fn/starlark:v0.5.0
      configMap:
        source: |
          for r in ctx.resource_list["items"]:
            if r["kind"] == "Deployment" and r["spec"]["replicas"] < 2:
              fail("deployment " + r["metadata"]["name"] + " needs at least 2 replicas")
`),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	})
	if out.Pushed || out.Conclusion != core.ConclusionFailure || out.Head != pushed {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	if !strings.Contains(run.GetOutput().GetTitle(), "failed: gcr.io/kpt-fn/starlark:v0.5.0") {
		t.Errorf("title %q", run.GetOutput().GetTitle())
	}
	text := run.GetOutput().GetText()
	if !strings.Contains(text, "❌ failed") || !strings.Contains(text, "needs at least 2 replicas") || !strings.Contains(text, "validator") ||
		!strings.Contains(run.GetOutput().GetSummary(), "- \\[error\\] fail: deployment app needs at least 2 replicas") {
		t.Errorf("text:\n%s", text)
	}
	anns := rtAnnotations(t, h, run.GetID())
	if len(anns) != 1 || anns[0].GetPath() != "apps/web/Kptfile" || anns[0].GetStartLine() != 13 ||
		anns[0].GetAnnotationLevel() != "failure" || !strings.Contains(anns[0].GetMessage(), "needs at least 2 replicas") {
		for _, a := range anns {
			t.Logf("annotation %s:%d %s %q", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel(), a.GetMessage())
		}
		t.Fatalf("want one failure annotation on apps/web/Kptfile:13 (the validator), got %d", len(anns))
	}
}

func TestRenderResultsNamingFilesBecomeAnnotationsAtTheField(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	const branch = "drafts/apps/web/w2"
	// search-replace as a validator: one result per match, naming file and field.
	files := map[string][]byte{
		"README.md": []byte("x\n"),
		"apps/web/Kptfile": rtKptfile("web", `  validators:
    - image: gcr.io/kpt-fn/search-replace:v0.2.0
      configMap:
        by-path: spec.**.containers[*].image
        by-value: nginx:1.25
`),
		"apps/web/deployment.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  a: b\n---\n" + rtDeployment),
	}
	pushed := rtPushDraft(t, h, branch, files)
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionSuccess || out.Pushed {
		t.Fatalf("outcome %+v", out)
	}
	anns := rtAnnotations(t, h, out.CheckRunID)
	if len(anns) != 1 || anns[0].GetPath() != "apps/web/deployment.yaml" || anns[0].GetStartLine() != 18 ||
		anns[0].GetAnnotationLevel() != "notice" {
		for _, a := range anns {
			t.Logf("annotation %s:%d %s %q", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel(), a.GetMessage())
		}
		for _, st := range out.Result.Steps {
			for _, r := range st.Results {
				t.Logf("result %+v file %+v field %+v", r, r.File, r.Field)
			}
		}
		t.Fatalf("want a notice on apps/web/deployment.yaml:18 (the image field), got %d", len(anns))
	}
}

func TestRenderDraftExecNotInAllowlistFailsNamingIt(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	const branch = "drafts/apps/web/exec"
	pushed := rtPushDraft(t, h, branch, map[string][]byte{
		"apps/web/Kptfile":         rtKptfile("web", "  validators:\n    - exec: kubeconform --strict\n"),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	})
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed,
		Options: rendercheck.RenderOptions{Limits: h.Opener.Limits}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionFailure {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	sum := run.GetOutput().GetSummary()
	for _, w := range []string{"Error: apps/web/Kptfile: exec function \"kubeconform --strict\"", "allowlist", "functions.exec"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
	// the refusal names the Kptfile, not "package .", and is said once
	if strings.Contains(sum, "package .") || strings.Count(sum, "not allowed: the server's exec allowlist") != 1 {
		t.Errorf("summary:\n%s", sum)
	}
	if anns := rtAnnotations(t, h, run.GetID()); len(anns) != 1 || anns[0].GetPath() != "apps/web/Kptfile" || anns[0].GetStartLine() != 9 {
		t.Errorf("want an annotation on the exec entry (Kptfile:9), got %d", len(anns))
	}
}

// rtPassthrough writes an exec function that returns its input unchanged.

// TestRenderOfAResourceThatIsNotYAMLNamesTheFile: a resource file that
// does not parse fails the render with kpt's words naming the file, and
// the check's annotation is on that file at kyaml's line, not on the
// Kptfile.
func TestRenderOfAResourceThatIsNotYAMLNamesTheFile(t *testing.T) {
	h := lifecycletest.New(t)
	out, pushed := rtRenderNewDraft(t, h, nil, "drafts/apps/web/broken", map[string][]byte{
		"apps/web/Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n"),
		"apps/web/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: [1, 2\n  b: 3\n"),
	})
	if out.Pushed || out.Conclusion != core.ConclusionFailure {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, pushed, core.RenderCheckName)
	if sum := run.GetOutput().GetSummary() + run.GetOutput().GetText(); !strings.Contains(sum, "cm.yaml: MalformedYAMLError: yaml: line 5:") {
		t.Errorf("the check does not name the file in kpt's words:\n%s", sum)
	}
	anns := rtAnnotations(t, h, run.GetID())
	if len(anns) != 1 || anns[0].GetPath() != "apps/web/cm.yaml" || anns[0].GetStartLine() != 5 {
		for _, a := range anns {
			t.Logf("annotation %s:%d %q", a.GetPath(), a.GetStartLine(), a.GetMessage())
		}
		t.Fatalf("want one annotation on apps/web/cm.yaml:5, got %d", len(anns))
	}
}

// TestRenderDraftOfLatestSaysWhichReleaseRan: a draft whose pipeline names
// set-labels:latest and set-namespace with no tag renders (as the newest
// releases porchbot knows), and the render check's function table says
// which release each ran as and that kpt pulls the catalog's newest.
func TestRenderDraftOfLatestSaysWhichReleaseRan(t *testing.T) {
	h := lifecycletest.New(t)
	out, _ := rtRenderNewDraft(t, h, nil, "drafts/apps/web/w1", map[string][]byte{
		"apps/web/Kptfile": rtKptfile("web", `  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:latest
      configMap:
        app: web
    - image: set-namespace
      configMap:
        namespace: web
`),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	})
	if !out.Pushed || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("outcome %+v", out)
	}
	text := h.OneCheck(t, out.Head, core.RenderCheckName).GetOutput().GetText()
	for _, want := range []string{
		"`ghcr.io/kptdev/krm-functions-catalog/set-labels:latest` ran as `v0.2.1`",
		"latest is v0\\.2\\.1, the newest release of set\\-labels porchbot knows; kpt pulls whatever the catalog published last",
		// an image named without a registry is the catalog's, where kpt v1.0.0-beta.67 looks
		"`ghcr.io/kptdev/krm-functions-catalog/set-namespace` ran as `v0.4.1`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the render check's table lacks %q:\n%s", want, text)
		}
	}
}

// TestRenderDraftAsKptBeta67: with render.kpt v1.0.0-beta.67 the draft's
// render commit records the render in the package's Kptfile, as that kpt
// release does, and the check says which release's render it was.
func TestRenderDraftAsKptBeta67(t *testing.T) {
	h := lifecycletest.New(t)
	seed := map[string][]byte{"README.md": []byte("x\n"),
		".github/porchbot.yaml": []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nrender:\n  kpt: v1.0.0-beta.67\n")}
	out, _ := rtRenderNewDraft(t, h, seed, "drafts/apps/web/w1", map[string][]byte{
		"apps/web/Kptfile":         rtKptfile("web", "  mutators:\n    - image: set-labels:v0.2.1\n      configMap:\n        app: web\n"),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	})
	if !out.Pushed || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("outcome %+v", out)
	}
	s := h.Open(t)
	kf, ok, err := s.ReadFile(context.Background(), out.Head, "apps/web/Kptfile")
	if err != nil || !ok {
		t.Fatalf("Kptfile at the render commit: %v %v", ok, err)
	}
	for _, want := range []string{"    - type: Rendered\n      status: \"True\"\n      reason: RenderSuccess\n",
		"      - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.1\n        exitCode: 0\n"} {
		if !strings.Contains(string(kf), want) {
			t.Errorf("the render commit's Kptfile lacks\n%s\n%s", want, kf)
		}
	}
	if sum := h.OneCheck(t, out.Head, core.RenderCheckName).GetOutput().GetSummary(); !strings.Contains(sum, "Rendered as kpt v1.0.0-beta.67 renders") {
		t.Errorf("the check does not say which kpt's render it was:\n%s", sum)
	}
}
