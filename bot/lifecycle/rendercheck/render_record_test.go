package rendercheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

// TestRenderRecordAloneIsNoChange: under kpt v1.0.0-beta.67 (the default
// release) a render records itself in the root Kptfile. A package whose
// files are rendered is rendered whatever its record says of a passing
// render (another render's results, or no record at all, as a package
// rendered before that release has): nothing is pushed for the record
// alone. A record that says the render failed, where it now passes, is a
// change: the bot pushes the Kptfile with the new record, and only it.
func TestRenderRecordAloneIsNoChange(t *testing.T) {
	rendered := rtRenderLocally(t, rtCatalog(t, "network/upf"), "network/upf")
	kf := string(rendered["Kptfile"])
	if !strings.Contains(kf, "reason: RenderSuccess") || !strings.Contains(kf, "renderStatus:") {
		t.Fatalf("the default release records no render:\n%s", kf)
	}
	// what the same render says of already rendered files differs
	otherResults := strings.Replace(kf, "renderStatus:", "renderStatus:\n    errorSummary: \"\"", 1)
	otherResults = strings.Replace(otherResults, "exitCode: 0\n", "exitCode: 0\n        stderr: from another render\n", 1)
	failed := strings.Replace(strings.Replace(kf, `status: "True"`, `status: "False"`, 1), "reason: RenderSuccess", "reason: RenderFailed", 1)
	noRecord := kf[:strings.Index(kf, "status:\n")]
	if otherResults == kf || failed == kf {
		t.Fatalf("the cases are the rendered Kptfile itself:\n%s", kf)
	}

	for _, c := range []struct {
		name    string
		kptfile string
		push    bool
	}{
		{"no record", noRecord, false},
		{"another render's results", otherResults, false},
		{"a failure recorded", failed, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := lifecycletest.New(t)
			ctx := context.Background()
			base := rtCatalog(t, "network/upf")
			h.Seed(t, base)
			files := rtWith(base, map[string][]byte{
				"network/upf/Kptfile":         []byte(c.kptfile),
				"network/upf/deployment.yaml": rendered["deployment.yaml"],
				"network/upf/service.yaml":    rendered["service.yaml"],
			})
			const branch = "drafts/network/upf/rec"
			pushed := rtPushDraft(t, h, branch, files)
			s := h.Open(t)
			out, err := rendercheck.RenderDraft(ctx, s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed})
			if err != nil {
				t.Fatal(err)
			}
			if out.Conclusion != core.ConclusionSuccess || out.Pushed != c.push {
				t.Fatalf("outcome %+v, want pushed=%v", out, c.push)
			}
			if !c.push {
				if len(out.Differs) != 0 || out.Head != pushed {
					t.Errorf("differs %v, head %s (pushed %s)", out.Differs, out.Head, pushed)
				}
				return
			}
			if strings.Join(out.Differs, ",") != "Kptfile" {
				t.Errorf("differs %v, want the Kptfile alone", out.Differs)
			}
			got, ok, err := s.ReadFile(ctx, out.Head, "network/upf/Kptfile")
			if err != nil || !ok {
				t.Fatalf("the pushed Kptfile: %v %v", ok, err)
			}
			if string(got) != kf {
				t.Errorf("pushed Kptfile:\n%s\nwant\n%s", got, kf)
			}
		})
	}
}
