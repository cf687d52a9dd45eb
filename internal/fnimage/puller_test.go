package fnimage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/porchbot/porchbot/internal/fnimage/fnimagetest"
)

const resourceList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
  data:
    greeting: hi
`

// run runs a pulled program on resourceList.
func run(t *testing.T, p Program) string {
	t.Helper()
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Stdin = strings.NewReader(resourceList)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", p.Path, err, stderr.String())
	}
	return out.String()
}

// TestPullRunsTheEntrypointAndCachesByDigest: an allowlisted image is
// pulled once: its entrypoint (a link to the program, in a lower layer)
// runs as the function, and a second pull, by tag or by digest, reads
// nothing more from the registry.
func TestPullRunsTheEntrypointAndCachesByDigest(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	prog := fnimagetest.Hello(t)
	digest := reg.Push(t, "fns/hello", "v1", v1.Config{Entrypoint: []string{"fn"}, Env: []string{"PATH=/bin"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "usr/local/bin/function", Body: prog}),
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "bin/fn", Type: '2', Link: "../usr/local/bin/function"}))
	allow, err := ParseAllowlist([]string{reg.Host + "/fns/*:v1*"})
	if err != nil {
		t.Fatal(err)
	}
	p := &Puller{Allow: allow, Cache: t.TempDir()}
	got, err := p.Program(context.Background(), reg.Host+"/fns/hello:v1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != digest || len(got.Args) != 0 {
		t.Errorf("program %+v, want digest %s and no arguments", got, digest)
	}
	if out := run(t, got); !strings.Contains(out, "hello: 'hi'") || !strings.Contains(out, "message: greeted") {
		t.Errorf("the pulled function's output:\n%s", out)
	}
	blobs := reg.Blobs.Load()
	for _, image := range []string{reg.Host + "/fns/hello:v1", reg.Host + "/fns/hello:v1@" + digest} {
		again, err := p.Program(context.Background(), image)
		if err != nil {
			t.Fatal(err)
		}
		if again.Path != got.Path {
			t.Errorf("%s: %s, want the cached %s", image, again.Path, got.Path)
		}
	}
	if n := reg.Blobs.Load() - blobs; n != 0 {
		t.Errorf("the cached image was read again: %d blob request(s)", n)
	}
}

// TestPullRefusesWhatTheAllowlistDoesNotName: another repository, a tag
// the pattern does not take, and an image whose digest is not the one a
// rule pins are refused before anything is pulled.
func TestPullRefusesWhatTheAllowlistDoesNotName(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	cfg := v1.Config{Entrypoint: []string{"/fn"}}
	d1 := reg.Push(t, "fns/a", "v1", cfg, fnimagetest.Layer(t, fnimagetest.Entry{Name: "fn", Body: []byte("#!/bin/sh\ncat\n")}))
	reg.Push(t, "fns/a", "v2", cfg, fnimagetest.Layer(t, fnimagetest.Entry{Name: "fn", Body: []byte("#!/bin/sh\nexit 1\n")}))
	allow, err := ParseAllowlist([]string{reg.Host + "/fns/a:v1", reg.Host + "/fns/pinned@" + d1})
	if err != nil {
		t.Fatal(err)
	}
	reg.Push(t, "fns/pinned", "latest", cfg, fnimagetest.Layer(t, fnimagetest.Entry{Name: "fn", Body: []byte("#!/bin/sh\nexit 2\n")}))
	p := &Puller{Allow: allow, Cache: t.TempDir()}
	for image, want := range map[string]string{
		reg.Host + "/fns/b:v1":          "does not name " + reg.Host + "/fns/b",
		reg.Host + "/fns/a:v2":          "names " + reg.Host + "/fns/a, but not at v2",
		reg.Host + "/fns/pinned:latest": "names " + reg.Host + "/fns/pinned, but not at latest",
	} {
		_, err := p.Program(context.Background(), image)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying %q", image, err, want)
		}
	}
	if p.Allows(reg.Host+"/fns/b:v1") || !p.Allows(reg.Host+"/fns/a:v9") {
		t.Error("Allows does not follow the allowlist's repositories")
	}
	if entries, _ := os.ReadDir(p.Cache); len(entries) != 0 {
		t.Errorf("refused images reached the cache: %v", entries)
	}
}

// TestPullHonoursWhiteouts: a program an upper layer deleted is not in
// the image, whatever a lower layer holds.
func TestPullHonoursWhiteouts(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	reg.Push(t, "fns/gone", "v1", v1.Config{Entrypoint: []string{"/bin/fn"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "bin/fn", Body: []byte("#!/bin/sh\ncat\n")}),
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "bin/.wh.fn"}))
	reg.Push(t, "fns/opaque", "v1", v1.Config{Entrypoint: []string{"/bin/fn"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "bin/fn", Body: []byte("#!/bin/sh\ncat\n")}),
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "bin/.wh..wh..opq"}, fnimagetest.Entry{Name: "bin/other", Body: []byte("x")}))
	allow, _ := ParseAllowlist([]string{reg.Host + "/fns/*"})
	p := &Puller{Allow: allow, Cache: t.TempDir()}
	for _, repo := range []string{"fns/gone", "fns/opaque"} {
		if _, err := p.Program(context.Background(), reg.Host+"/"+repo+":v1"); err == nil || !strings.Contains(err.Error(), "/bin/fn is not in the image") {
			t.Errorf("%s: %v, want the deleted entrypoint missing", repo, err)
		}
	}
}

// TestPullBoundsTheImage: an image over MaxBytes is refused.
func TestPullBoundsTheImage(t *testing.T) {
	reg := fnimagetest.NewRegistry(t)
	reg.Push(t, "fns/big", "v1", v1.Config{Entrypoint: []string{"/fn"}},
		fnimagetest.Layer(t, fnimagetest.Entry{Name: "fn", Body: bytes.Repeat([]byte("x"), 1<<20)}))
	allow, _ := ParseAllowlist([]string{reg.Host + "/fns/big"})
	p := &Puller{Allow: allow, Cache: t.TempDir(), MaxBytes: 64 << 10}
	if _, err := p.Program(context.Background(), reg.Host+"/fns/big:v1"); err == nil || !strings.Contains(err.Error(), "over 65536") {
		t.Errorf("%v, want the image refused as too large", err)
	}
}

func TestParseAllowlist(t *testing.T) {
	for _, c := range []struct{ entry, err string }{
		{"ghcr.io/acme/fn", ""},
		{"ghcr.io/acme/*:v1.*", ""},
		{"localhost:5000/fn@sha256:" + strings.Repeat("a", 64), ""},
		{"acme/fn", "registry host first"},
		{"ghcr.io/acme/fn@sha256:abc", "is not sha256:<64 hex digits>"},
		{"ghcr.io/acme/fn:", "is empty"},
		{"ghcr.io/acme/fn:[", "tag pattern"},
	} {
		_, err := ParseAllowlist([]string{c.entry})
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.entry, err, c.err)
		}
	}
}
