package rendercheck_test

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/render"
)

// RenderCheck (proposals, /porch render) against the local forge; the
// helpers are in draft_test.go.

func rtPassthrough(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "passthrough")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRenderExecDeclaredAndAllowedRunsButNeverForForks(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	prog := rtPassthrough(t)
	h.Opener.Limits.ExecAllowlist = []string{"passthrough"}
	opts := rendercheck.RenderOptions{Limits: h.Opener.Limits}
	cfg := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nfunctions:\n  exec:\n    passthrough: " + prog + "\n"
	main := map[string][]byte{".github/porchbot.yaml": []byte(cfg)}
	h.Seed(t, main)
	const branch = "drafts/apps/web/exec"
	pushed := rtPushDraft(t, h, branch, rtWith(main, map[string][]byte{
		"apps/web/Kptfile":         rtKptfile("web", "  validators:\n    - exec: passthrough\n"),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	}))
	s := h.Open(t)
	if s.ConfigErr != nil {
		t.Fatal(s.ConfigErr)
	}
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionSuccess || out.Pushed {
		t.Fatalf("allowed exec: %+v\n%v", out, out.Result.Steps)
	}

	// A fork's pull request: exec is skipped, the check fails clearly.
	fork, err := rendercheck.RenderCheck(ctx, s, s.Hub, pushed, "apps/web", true, opts)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Conclusion != core.ConclusionFailure || len(fork.Result.Skipped()) != 1 {
		t.Fatalf("fork: %+v", fork)
	}
	runs := h.CheckRuns(t, pushed, core.RenderCheckName)
	var forkRun *github.CheckRun
	for _, r := range runs {
		if r.GetID() == fork.CheckRunID {
			forkRun = r
		}
	}
	if forkRun == nil {
		t.Fatal("fork check run not found")
	}
	if !strings.Contains(forkRun.GetOutput().GetTitle(), "incomplete: 1 exec function(s) not run") ||
		!strings.Contains(forkRun.GetOutput().GetSummary(), "forks are rendered with porchbot's built-in functions only") ||
		!strings.Contains(forkRun.GetOutput().GetText(), "⏭️ skipped") {
		t.Errorf("fork check: %q\n%s\n%s", forkRun.GetOutput().GetTitle(), forkRun.GetOutput().GetSummary(), forkRun.GetOutput().GetText())
	}
	anns := rtAnnotations(t, h, fork.CheckRunID)
	if len(anns) != 1 || anns[0].GetAnnotationLevel() != "warning" || anns[0].GetStartLine() != 9 {
		t.Errorf("want a warning on the skipped exec entry, got %d", len(anns))
	}
}

func TestRenderCheckUnknownImageNamesItAndTheBuiltins(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	files := map[string][]byte{
		"apps/web/Kptfile":         rtKptfile("web", "  mutators:\n    - image: ghcr.io/acme/frobnicate:v1\n"),
		"apps/web/deployment.yaml": []byte(rtDeployment),
	}
	head := plumbing.NewHash(h.Seed(t, files))
	s := h.Open(t)
	out, err := rendercheck.RenderCheck(ctx, s, s.Hub, head, "apps/web", false, rendercheck.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionFailure {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, head, core.RenderCheckName)
	sum := run.GetOutput().GetSummary()
	for _, w := range append([]string{`"ghcr.io/acme/frobnicate:v1"`, "frobnicate"}, render.SupportedFunctions()...) {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
	if !strings.Contains(run.GetOutput().GetTitle(), "ghcr.io/acme/frobnicate:v1") {
		t.Errorf("title %q", run.GetOutput().GetTitle())
	}
}

func TestRenderCheckPassesWhenCommittedFilesAreRendered(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	head := plumbing.NewHash(h.Seed(t, rtCatalog(t, "network/upf", "basens")))
	s := h.Open(t)
	c := rtCount(h)
	for _, pkg := range []string{"network/upf", "basens"} {
		out, err := rendercheck.RenderCheck(ctx, s, s.Hub, head, pkg, false, rendercheck.RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Conclusion != core.ConclusionSuccess || out.Pushed || out.Head != head {
			t.Fatalf("%s: %+v", pkg, out)
		}
	}
	if rest, _, fetches, pushes := c.done(); rest != 4 || fetches != 0 || pushes != 0 { // each: in_progress, completed
		t.Errorf("REST %d, fetches %d, pushes %d", rest, fetches, pushes)
	}
	if _, err := rendercheck.RenderCheck(ctx, s, s.Hub, plumbing.NewHash(strings.Repeat("ab", 20)), "basens", false,
		rendercheck.RenderOptions{}); !errors.Is(err, gitstore.ErrNotFound) {
		t.Errorf("a commit absent from the cache: %v", err)
	}
}

func TestRenderGuardrailsFromTheRepositoryConfig(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	main := rtCatalog(t, "basens")
	main[".github/porchbot.yaml"] = []byte(`apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
render:
  mutators:
    - image: set-annotations:v0.1.4
      configMap:
        owner: platform
  validators:
    - image: starlark:v0.5.0
      configMap:
        source: |
          for r in ctx.resource_list["items"]:
            if r["kind"] == "ResourceQuota":
              fail("quotas are managed centrally")
`)
	head := plumbing.NewHash(h.Seed(t, main))
	s := h.Open(t)
	if s.ConfigErr != nil {
		t.Fatal(s.ConfigErr)
	}
	out, err := rendercheck.RenderCheck(ctx, s, s.Hub, head, "basens", false, rendercheck.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionFailure || len(out.Result.Steps) != 3 {
		t.Fatalf("outcome %+v %+v", out, out.Result)
	}
	text := h.OneCheck(t, head, core.RenderCheckName).GetOutput().GetText()
	if strings.Count(text, "(repository guardrail)") != 2 || !strings.Contains(text, "quotas are managed centrally") {
		t.Errorf("text:\n%s", text)
	}
}

func TestRenderCheckSendsAnnotationsBeyondFiftyInBatches(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	files := map[string][]byte{"many/Kptfile": rtKptfile("many",
		"  mutators:\n    - image: set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n")}
	for i := range 60 {
		files[path.Join("many", "cm-"+string(rune('a'+i/26))+string(rune('a'+i%26))+".yaml")] =
			[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: dev\n")
	}
	head := plumbing.NewHash(h.Seed(t, files))
	s := h.Open(t)
	c := rtCount(h)
	out, err := rendercheck.RenderCheck(ctx, s, s.Hub, head, "many", false, rendercheck.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rest, delta, _, _ := c.done()
	// the 60 ConfigMaps and the Kptfile, which would record the render
	if out.Conclusion != core.ConclusionFailure || len(out.Differs) != 61 {
		t.Fatalf("outcome %+v", out)
	}
	if rest != 3 || delta["PATCH /repos/{owner}/{repo}/check-runs/{id}"] != 2 {
		t.Errorf("want a create (in progress), its completion and an update, got %d %v", rest, delta)
	}
	if anns := rtAnnotations(t, h, out.CheckRunID); len(anns) != 61 {
		t.Errorf("want 61 annotations, got %d", len(anns))
	}
}
