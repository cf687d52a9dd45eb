package rendercheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
)

const rtGoodConfig = "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 2\n"

func TestConfigCheckOnAPullRequestHeadAnnotatesEachProblem(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	main := map[string][]byte{config.Path: []byte(rtGoodConfig), "README.md": []byte("x\n")}
	h.Seed(t, main)
	bad := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: two\nrender:\n  onDraftPush: always\n"
	head := rtPushDraft(t, h, "config-change", rtWith(main, map[string][]byte{config.Path: []byte(bad)}))
	s := h.Open(t)
	if s.Config.Approvals.Required != 2 {
		t.Fatal("the session's config is main's")
	}
	c := rtCount(h)
	out, err := rendercheck.ConfigCheck(ctx, s, s.Hub, head, h.Opener.Limits)
	if err != nil {
		t.Fatal(err)
	}
	if rest, _, _, _ := c.done(); rest != 1 {
		t.Errorf("%d REST calls, want 1", rest)
	}
	_, perr := config.Parse(config.Path, []byte(bad), h.Opener.Limits)
	want := perr.(*config.ValidationError).Problems
	if out.Conclusion != core.ConclusionFailure || len(out.Problems) != 2 || len(want) != 2 {
		t.Fatalf("outcome %+v, want problems %v", out, want)
	}
	run := h.OneCheck(t, head, core.ConfigCheckName)
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), "2 problems") {
		t.Errorf("check %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	if !strings.Contains(run.GetOutput().GetSummary(), "`.github/porchbot.yaml:4:") {
		t.Errorf("summary:\n%s", run.GetOutput().GetSummary())
	}
	anns := rtAnnotations(t, h, run.GetID())
	if len(anns) != 2 {
		t.Fatalf("%d annotations", len(anns))
	}
	for i, a := range anns {
		p := want[i]
		if a.GetPath() != config.Path || a.GetStartLine() != p.Line || a.GetStartColumn() != p.Column ||
			a.GetAnnotationLevel() != "failure" || a.GetMessage() != p.Message || a.GetTitle() != p.Field {
			t.Errorf("annotation %d: %s:%d:%d %q %q, want %v", i, a.GetPath(), a.GetStartLine(), a.GetStartColumn(),
				a.GetTitle(), a.GetMessage(), p)
		}
	}
	if anns[0].GetStartLine() != 4 || anns[1].GetStartLine() != 6 {
		t.Errorf("lines %d, %d; want 4 and 6", anns[0].GetStartLine(), anns[1].GetStartLine())
	}
}

func TestConfigCheckValidAndAbsent(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	good := rtPushDraft(t, h, "add-config", map[string][]byte{config.Path: []byte(rtGoodConfig + "render:\n  onDraftPush: check\n")})
	s := h.Open(t)
	out, err := rendercheck.ConfigCheck(ctx, s, s.Hub, good, h.Opener.Limits)
	if err != nil {
		t.Fatal(err)
	}
	run := h.OneCheck(t, good, core.ConfigCheckName)
	if out.Conclusion != core.ConclusionSuccess || run.GetConclusion() != "success" ||
		!strings.Contains(run.GetOutput().GetSummary(), "| render.onDraftPush | `check` |") ||
		!strings.Contains(run.GetOutput().GetSummary(), "once merged into `main`") {
		t.Errorf("valid config: %s\n%s", run.GetConclusion(), run.GetOutput().GetSummary())
	}

	// A pull request that deletes the file: the defaults.
	gone := rtPushDraft(t, h, "add-config", map[string][]byte{"README.md": []byte("x\n")})
	s = h.Open(t)
	out, err = rendercheck.ConfigCheck(ctx, s, s.Hub, gone, h.Opener.Limits)
	if err != nil || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("absent config: %+v %v", out, err)
	}
	if title := h.OneCheck(t, gone, core.ConfigCheckName).GetOutput().GetTitle(); !strings.Contains(title, "defaults") {
		t.Errorf("title %q", title)
	}
}

func TestConfigCheckAppliesTheServerLimits(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	cfg := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nfunctions:\n  exec:\n    kubeconform: /usr/bin/kubeconform\n"
	head := rtPushDraft(t, h, "exec", map[string][]byte{config.Path: []byte(cfg)})
	s := h.Open(t)
	out, err := rendercheck.ConfigCheck(ctx, s, s.Hub, head, config.ServerLimits{})
	if err != nil || out.Conclusion != core.ConclusionFailure || len(out.Problems) != 1 ||
		!strings.Contains(out.Problems[0].Message, "does not allow exec function") {
		t.Fatalf("strict server: %+v %v", out, err)
	}
	out, err = rendercheck.ConfigCheck(ctx, s, s.Hub, head, config.ServerLimits{ExecAllowlist: []string{"kubeconform"}})
	if err != nil || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("allowing server: %+v %v", out, err)
	}
}

func TestReportBrokenDeploymentConfig(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{config.Path: []byte(rtGoodConfig)})
	s := h.Open(t)
	c := rtCount(h)
	if out, err := rendercheck.ReportBrokenDeploymentConfig(ctx, s, s.Hub); out != nil || err != nil {
		t.Fatalf("a good config: %+v %v", out, err)
	}
	if rest, _, _, _ := c.done(); rest != 0 {
		t.Errorf("%d REST calls for a good config", rest)
	}

	broken := plumbing.NewHash(h.Seed(t, map[string][]byte{config.Path: []byte(
		"apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\naprovals:\n  required: 3\n")}))
	s = h.Open(t)
	if s.ConfigErr == nil || s.DeploymentHead != broken {
		t.Fatalf("session: %v %s", s.ConfigErr, s.DeploymentHead)
	}
	out, err := rendercheck.ReportBrokenDeploymentConfig(ctx, s, s.Hub)
	if err != nil {
		t.Fatal(err)
	}
	if out.Conclusion != core.ConclusionFailure || out.Head != broken || len(out.Problems) != 1 {
		t.Fatalf("outcome %+v", out)
	}
	run := h.OneCheck(t, broken, core.ConfigCheckName)
	if run.GetConclusion() != "failure" || !strings.Contains(run.GetOutput().GetTitle(), "last good configuration stays in force") ||
		!strings.Contains(run.GetOutput().GetSummary(), "`.github/porchbot.yaml:3:1`") {
		t.Errorf("check %s %q\n%s", run.GetConclusion(), run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
	anns := rtAnnotations(t, h, run.GetID())
	if len(anns) != 1 || anns[0].GetPath() != config.Path || anns[0].GetStartLine() != 3 || anns[0].GetStartColumn() != 1 {
		t.Errorf("annotations %v", anns)
	}
	if s.Config.Approvals.Required != 2 {
		t.Error("the last good config stays in force")
	}
}
