// Package fnimagetest serves function images for tests: an OCI registry
// on loopback, images made of tar layers, and a small KRM function to
// put in them.
package fnimagetest

import (
	"archive/tar"
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Registry is an OCI registry on loopback, counting the blob requests it
// serves; the test's cleanup stops it.
type Registry struct {
	Host  string // host:port
	Blobs atomic.Int64
}

// NewRegistry starts a registry.
func NewRegistry(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{}
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
			r.Blobs.Add(1)
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	return r
}

var (
	fnOnce sync.Once
	fnBin  []byte
	fnErr  error
)

// Hello is fnhello built static, as a function image holds it: a KRM
// function annotating every resource with hello: <functionConfig
// data.greeting> and reporting the result "greeted" (failing when the
// greeting is "fail").
func Hello(t testing.TB) []byte {
	t.Helper()
	fnOnce.Do(func() {
		dir, err := os.MkdirTemp("", "porchbot-fnhello")
		if err != nil {
			fnErr = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "fnhello")
		cmd := exec.Command("go", "build", "-o", out, "github.com/porchbot/porchbot/internal/fnimage/fnimagetest/fnhello")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			fnErr = err
			fnBin = b
			return
		}
		fnBin, fnErr = os.ReadFile(out)
	})
	if fnErr != nil {
		t.Fatalf("build fnhello: %v\n%s", fnErr, fnBin)
	}
	return fnBin
}

// Entry is one file of a layer: a regular file with Body, or a link
// (Type tar.TypeSymlink or tar.TypeLink) to Link.
type Entry struct {
	Name, Link string
	Type       byte
	Body       []byte
}

// Layer is a layer of entries.
func Layer(t testing.TB, entries ...Entry) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Link, Mode: 0o755, Size: int64(len(e.Body))}
		if e.Type == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.Body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Push writes an image of layers with cfg to the registry as repo:tag
// and returns its digest.
func (r *Registry) Push(t testing.TB, repo, tag string, cfg v1.Config, layers ...v1.Layer) string {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	if img, err = mutate.Config(img, cfg); err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(r.Host + "/" + repo + ":" + tag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}
