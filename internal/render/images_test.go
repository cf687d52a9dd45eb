package render

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/porchbot/porchbot/internal/fnimage"
	"github.com/porchbot/porchbot/internal/fnimage/fnimagetest"
)

// TestRenderRunsAllowlistedImages: a function image porchbot does not
// build in runs, pulled from its registry, when the server's allowlist
// names it: in the sandbox, its results and failure reported as any
// function's; for a fork it is skipped (the render incomplete); an image
// the allowlist does not name fails as before, saying what porchbot runs.
func TestRenderRunsAllowlistedImages(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	reg.Push(t, "fns/hello", "v1", v1.Config{Entrypoint: []string{"/usr/local/bin/function"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "usr/local/bin/function", Body: fnimagetest.Hello(t)}))
	allow, err := fnimage.ParseAllowlist([]string{reg.Host + "/fns/hello:v*"})
	if err != nil {
		t.Fatal(err)
	}
	images := &fnimage.Puller{Allow: allow, Cache: t.TempDir()}
	pkg := func(image, greeting string) map[string]string {
		return map[string]string{
			"Kptfile": kptfile("app", "pipeline:\n  mutators:\n    - image: "+image+"\n      configMap:\n        greeting: "+greeting+"\n"),
			"cm.yaml": cm("a"),
		}
	}
	image := reg.Host + "/fns/hello:v1"

	for _, sb := range []*Sandbox{nil, testSandbox(FunctionLimits{})} {
		fs, root := memPkg(t, pkg(image, "hi"))
		res, err := Render(context.Background(), fs, root, Options{Images: images, AllowExec: true, Bounds: Bounds{Sandbox: sb}})
		if err != nil {
			t.Fatalf("sandbox %v: %v", sb != nil, err)
		}
		if b, _ := fs.ReadFile(root + "/cm.yaml"); !strings.Contains(string(b), "hello: 'hi'") {
			t.Errorf("sandbox %v: not rendered by the pulled function:\n%s", sb != nil, b)
		}
		if st := res.Steps[0]; st.Status != StepOK || len(res.Results.Items) != 1 || len(res.Results.Items[0].Results) != 1 ||
			res.Results.Items[0].Results[0].Message != "greeted" {
			t.Errorf("sandbox %v: step %+v results %+v", sb != nil, st, res.Results.Items)
		}
	}

	fs, root := memPkg(t, pkg(image, "fail"))
	_, err = Render(context.Background(), fs, root, Options{Images: images, AllowExec: true})
	var fe *FunctionError
	if !errors.As(err, &fe) {
		t.Errorf("a failing pulled function: %v", err)
	}

	fs, root = memPkg(t, pkg(image, "hi"))
	res, err := Render(context.Background(), fs, root, Options{Images: images})
	if !errors.Is(err, ErrIncomplete) || res.Steps[0].Status != StepSkipped || !strings.Contains(res.Steps[0].Message, "forks") {
		t.Errorf("without exec (a fork): %v %+v", err, res.Steps)
	}

	for _, other := range []string{reg.Host + "/fns/other:v1", reg.Host + "/fns/hello:latest"} {
		fs, root = memPkg(t, pkg(other, "hi"))
		_, err = Render(context.Background(), fs, root, Options{Images: images, AllowExec: true})
		if err == nil || !strings.Contains(err.Error(), "not") {
			t.Errorf("%s: %v, want it refused", other, err)
		}
	}
}
