package rendercheck_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// TestRenderDraftTakesEveryNameGitTakes: a package named café/ holding
// extra+dev.yaml (names kyaml's in-memory file system refuses) renders, and
// the bot's Render commit carries the rendered files under those names.
func TestRenderDraftTakesEveryNameGitTakes(t *testing.T) {
	h := lifecycletest.New(t)
	ctx := context.Background()
	h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
	const branch = "drafts/café/w1"
	pushed := rtPushDraft(t, h, branch, map[string][]byte{
		"README.md":                []byte("x\n"),
		"café/Kptfile":             rtKptfile("café", "  mutators:\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      configMap:\n        namespace: prod\n"),
		"café/extra+dev.yaml":      []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"),
		"café/sous dossier/é.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: accent\n"),
	})
	s := h.Open(t)
	out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Pushed || out.Conclusion != core.ConclusionSuccess {
		t.Fatalf("outcome %+v", out)
	}
	if strings.Join(out.Differs, ",") != "Kptfile,extra+dev.yaml,sous dossier/é.yaml" {
		t.Errorf("differs %v", out.Differs)
	}
	run := h.OneCheck(t, out.Head, core.RenderCheckName)
	if run.GetConclusion() != "success" {
		t.Errorf("check %s %q", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	files, err := s.Git.ReadTree(ctx, out.Head, "café")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"extra+dev.yaml", "sous dossier/é.yaml"} {
		if !strings.Contains(string(files[name]), "namespace: prod") {
			t.Errorf("%s in the Render commit:\n%s", name, files[name])
		}
	}
}

// TestRenderFailuresEndInACompletedCheck: whatever makes a render fail
// before any function runs, the check run is completed, says "Error:", names
// the Kptfile and how to fix it, and names no Go type.
func TestRenderFailuresEndInACompletedCheck(t *testing.T) {
	for name, tc := range map[string]struct {
		kptfile string
		want    []string
		line    int
	}{
		"old schema": {"apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: app\n",
			[]string{"Error: invalid Kptfile:", "app/Kptfile:1:13:", "old version of the Kptfile schema", "Upgrade the package"}, 1},
		"unknown field": {"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - image: set-labels\n      args: [a]\n",
			[]string{"Error: invalid Kptfile:", "app/Kptfile:8:7:", `unknown field "args"`}, 8},
	} {
		t.Run(name, func(t *testing.T) {
			h := lifecycletest.New(t)
			ctx := context.Background()
			h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
			branch := "drafts/app/w1"
			pushed := rtPushDraft(t, h, branch, map[string][]byte{"README.md": []byte("x\n"),
				"app/Kptfile": []byte(tc.kptfile), "app/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")})
			s := h.Open(t)
			out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
			if err != nil {
				t.Fatal(err)
			}
			run := h.OneCheck(t, pushed, core.RenderCheckName)
			if out.Conclusion != core.ConclusionFailure || run.GetStatus() != "completed" || run.GetConclusion() != "failure" {
				t.Fatalf("outcome %+v, check %s %s", out, run.GetStatus(), run.GetConclusion())
			}
			sum := run.GetOutput().GetSummary()
			for _, w := range tc.want {
				if !strings.Contains(sum, w) {
					t.Errorf("summary lacks %q:\n%s", w, sum)
				}
			}
			if goTypeName.MatchString(sum) {
				t.Errorf("summary names a Go type:\n%s", sum)
			}
			anns := rtAnnotations(t, h, out.CheckRunID)
			if len(anns) != 1 || anns[0].GetPath() != "app/Kptfile" || anns[0].GetStartLine() != tc.line {
				for _, a := range anns {
					t.Logf("annotation %s:%d %s", a.GetPath(), a.GetStartLine(), a.GetMessage())
				}
				t.Errorf("want one annotation at app/Kptfile:%d", tc.line)
			}
		})
	}
}

// goTypeName is a Go type's name in a message (render.Function,
// v1.Function): users should never read one.
var goTypeName = regexp.MustCompile(`\b(render|v1)\.[A-Z]`)
