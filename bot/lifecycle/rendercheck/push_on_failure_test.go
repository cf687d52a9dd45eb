package rendercheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// TestRenderDraftPushOnFailure: with render.pushOnFailure and a Kptfile
// that asks kpt to save a failed render, a draft whose validator fails gets
// what the render had rendered (the mutators' output, the Kptfile's failed
// status) pushed as "Render <package> (failed)", and its check still fails;
// rendering that commit of the bot's again pushes nothing more. Without the
// setting nothing is pushed.
func TestRenderDraftPushOnFailure(t *testing.T) {
	kf := strings.Replace(string(rtKptfile("web", `  mutators:
    - image: set-labels:v0.2.1
      configMap:
        app: web
  validators:
    - image: starlark:v0.5.0
      configMap:
        source: fail("replicas must be at least 2")
`)), "  annotations:\n", "  annotations:\n    kpt.dev/save-on-render-failure: \"true\"\n", 1)
	files := map[string][]byte{"apps/web/Kptfile": []byte(kf), "apps/web/deployment.yaml": []byte(rtDeployment)}
	for _, push := range []bool{true, false} {
		h := lifecycletest.New(t)
		cfg := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nrender:\n  kpt: v1.0.0-beta.67\n"
		if push {
			cfg += "  pushOnFailure: true\n"
		}
		out, pushed := rtRenderNewDraft(t, h, map[string][]byte{"README.md": []byte("x\n"), ".github/porchbot.yaml": []byte(cfg)},
			"drafts/apps/web/w1", files)
		if out.Conclusion != core.ConclusionFailure {
			t.Fatalf("push %v: conclusion %s", push, out.Conclusion)
		}
		if !push {
			if out.Pushed || out.Head != pushed {
				t.Errorf("without render.pushOnFailure a failed render pushed: %+v", out)
			}
			continue
		}
		if !out.Pushed || out.Head == pushed {
			t.Fatalf("the saved render was not pushed: %+v", out)
		}
		ctx := context.Background()
		s := h.Open(t)
		dep, _, err := s.ReadFile(ctx, out.Head, "apps/web/deployment.yaml")
		if err != nil || !strings.Contains(string(dep), "app: web") {
			t.Errorf("deployment at the pushed commit (%v):\n%s", err, dep)
		}
		k, _, err := s.ReadFile(ctx, out.Head, "apps/web/Kptfile")
		if err != nil || !strings.Contains(string(k), "status: \"False\"\n      reason: RenderFailed") {
			t.Errorf("Kptfile at the pushed commit (%v):\n%s", err, k)
		}
		msg, _, err := core.CommitMessage(ctx, s.Git, out.Head)
		if err != nil || !strings.HasPrefix(msg, "Render apps/web (failed)\n") || !strings.Contains(msg, "- modified deployment.yaml") {
			t.Errorf("commit message (%v):\n%s", err, msg)
		}
		run := h.OneCheck(t, out.Head, core.RenderCheckName)
		if run.GetConclusion() != core.ConclusionFailure || !strings.Contains(run.GetOutput().GetSummary(), "render.pushOnFailure") {
			t.Errorf("check on the pushed commit: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
		}
		again, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: "drafts/apps/web/w1", Head: out.Head})
		if err != nil || again.Pushed || again.Head != out.Head || again.Conclusion != core.ConclusionFailure {
			t.Errorf("the bot's own failed render commit rendered again: %+v (%v)", again, err)
		}
	}
}
