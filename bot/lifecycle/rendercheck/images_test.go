package rendercheck_test

import (
	"context"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/fnimage"
	"github.com/porchbot/porchbot/internal/fnimage/fnimagetest"
)

// TestRenderDraftRunsAllowlistedFunctionImages: a draft whose pipeline
// names a function image porchbot does not build in renders with it when
// the server allows the image: pulled from its registry, run, and the
// render pushed; the check names the image. Without the server's
// allowlist the same draft fails, and pushes nothing.
func TestRenderDraftRunsAllowlistedFunctionImages(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	reg.Push(t, "fns/hello", "v1", v1.Config{Entrypoint: []string{"/function"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "function", Body: fnimagetest.Hello(t)}))
	allow, err := fnimage.ParseAllowlist([]string{reg.Host + "/fns/hello"})
	if err != nil {
		t.Fatal(err)
	}
	image := reg.Host + "/fns/hello:v1"
	files := map[string][]byte{
		"apps/web/Kptfile": rtKptfile("web", "  mutators:\n    - image: "+image+"\n      configMap:\n        greeting: hi\n"),
		"apps/web/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"),
	}
	for _, allowed := range []bool{true, false} {
		h := lifecycletest.New(t)
		h.Seed(t, map[string][]byte{"README.md": []byte("x\n")})
		const branch = "drafts/apps/web/img"
		pushed := rtPushDraft(t, h, branch, rtWith(map[string][]byte{"README.md": []byte("x\n")}, files))
		s := h.Open(t)
		opts := rendercheck.RenderOptions{}
		if allowed {
			opts.Images = &fnimage.Puller{Allow: allow, Cache: t.TempDir()}
		}
		out, err := rendercheck.RenderDraft(context.Background(), s, s.Hub, rendercheck.RenderRequest{Branch: branch, Head: pushed, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if !allowed {
			if out.Pushed || out.Conclusion != core.ConclusionFailure {
				t.Errorf("not allowed: %+v", out)
			}
			continue
		}
		if !out.Pushed || out.Conclusion != core.ConclusionSuccess {
			t.Fatalf("allowed: %+v", out)
		}
		cm, ok, err := s.ReadFile(context.Background(), out.Head, "apps/web/cm.yaml")
		if err != nil || !ok || !strings.Contains(string(cm), "hello: 'hi'") {
			t.Errorf("the pushed render (%v %v):\n%s", ok, err, cm)
		}
		if text := h.OneCheck(t, out.Head, core.RenderCheckName).GetOutput().GetText(); !strings.Contains(text, image) {
			t.Errorf("the check does not name the image:\n%s", text)
		}
	}
}
