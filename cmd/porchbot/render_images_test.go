package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/porchbot/porchbot/internal/fnimage/fnimagetest"
)

// TestRunRenderPullsFunctionImages: `porchbot render --function-images`
// pulls the images it names from their registry and runs them, as kpt
// runs images (no --allow-exec needed); an image it does not name fails
// as an image porchbot does not build in.
func TestRunRenderPullsFunctionImages(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	reg.Push(t, "fns/hello", "v1", v1.Config{Entrypoint: []string{"/function"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "function", Body: fnimagetest.Hello(t)}))
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - image: " +
		reg.Host + "/fns/hello:v1\n      configMap:\n        greeting: hi\n"
	cache := t.TempDir()
	for _, allowed := range []string{reg.Host + "/fns/hello", reg.Host + "/fns/other"} {
		dir := writePkg(t, map[string]string{"Kptfile": kf, "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"})
		var stdout, stderr bytes.Buffer
		err := runRender(context.Background(), []string{dir, "--function-images", allowed, "--function-image-cache", cache}, &stdout, &stderr)
		b, _ := os.ReadFile(filepath.Join(dir, "cm.yaml"))
		if allowed == reg.Host+"/fns/hello" {
			if err != nil || !strings.Contains(string(b), "hello: 'hi'") || !strings.Contains(stderr.String(), "Successfully executed 1 function(s)") {
				t.Errorf("allowed: %v\n%s\n%s", err, stderr.String(), b)
			}
			continue
		}
		if err == nil || strings.Contains(string(b), "hello") || !strings.Contains(stderr.String(), "has no built-in named hello") {
			t.Errorf("not allowed: %v\n%s", err, stderr.String())
		}
	}
	if _, err := functionImagePuller("acme/fn", ""); err == nil || !strings.Contains(err.Error(), "--function-images") {
		t.Errorf("a bad list: %v", err)
	}
}
