package fnimage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Puller pulls allowlisted function images and keeps the program of each
// in a cache directory, by digest.
type Puller struct {
	// Allow names the images that may run.
	Allow Allowlist
	// Cache is the directory programs are kept in (created when absent).
	Cache string
	// MaxBytes bounds the compressed layers pulled for one image and the
	// program extracted (DefaultMaxBytes when zero).
	MaxBytes int64
	// Transport reaches the registries (http.DefaultTransport when nil).
	Transport http.RoundTripper
	// Keychain gives registry credentials (the docker config of the
	// server's user, authn.DefaultKeychain, when nil).
	Keychain authn.Keychain

	mu    sync.Mutex
	locks map[string]*sync.Mutex // by cache key: one pull of an image at a time
}

// DefaultMaxBytes bounds what one image may cost to pull.
const DefaultMaxBytes = 512 << 20

// Program is a function image's program, ready to run.
type Program struct {
	Path   string   // the extracted entrypoint, in the cache
	Args   []string // the entrypoint's arguments and the image's Cmd
	Digest string   // the image's digest (of the index, for a multi-platform image)
}

// RefusedError is an image the allowlist does not let run.
type RefusedError struct {
	Image  string
	Reason string
}

func (e *RefusedError) Error() string { return e.Reason }

// Allows reports whether the allowlist names the image's repository (a
// rule pinning a tag or digest is checked when the image is pulled).
func (p *Puller) Allows(image string) bool {
	ref, err := name.ParseReference(image, name.StrictValidation)
	if err != nil {
		return false
	}
	return p.Allow.Names(ref.Context().Name())
}

// Program pulls image (once: later calls find it in the cache) and
// returns its program.
func (p *Puller) Program(ctx context.Context, image string) (Program, error) {
	ref, err := name.ParseReference(image, name.StrictValidation)
	if err != nil {
		return Program{}, fmt.Errorf("the image %q is not a valid reference: %w", image, err)
	}
	repo := ref.Context().Name()
	tag, digest := tagAndDigest(image, ref)
	if !p.Allow.Names(repo) {
		return Program{}, &RefusedError{Image: image, Reason: "not allowed: the server's function image allowlist does not name " + repo}
	}
	refuse := func(at string) error {
		return &RefusedError{Image: image, Reason: fmt.Sprintf(
			"not allowed: the server's function image allowlist names %s, but not at %s", repo, at)}
	}
	if digest == "" && !p.Allow.mayTake(repo, tag) {
		return Program{}, refuse(tag)
	}
	opts := p.remoteOptions(ctx)
	if digest == "" {
		desc, err := remote.Head(ref, opts...)
		if err != nil {
			return Program{}, fmt.Errorf("resolve %s: %w", image, err)
		}
		digest = desc.Digest.String()
	}
	if _, ok := p.Allow.Match(repo, tag, digest); !ok {
		return Program{}, refuse(nameOf(tag, digest))
	}
	plat := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	key := strings.ReplaceAll(digest, ":", "-") + "-" + plat.OS + "-" + plat.Architecture
	unlock := p.lock(key)
	defer unlock()
	dir := filepath.Join(p.Cache, key)
	if prog, err := readCached(dir); err == nil {
		prog.Digest = digest
		return prog, nil
	}
	img, err := remote.Image(ref.Context().Digest(digest), append(opts, remote.WithPlatform(plat))...)
	if err != nil {
		return Program{}, fmt.Errorf("pull %s: %w", image, err)
	}
	prog, err := p.extract(img, dir)
	if err != nil {
		return Program{}, fmt.Errorf("pull %s: %w", image, err)
	}
	prog.Digest = digest
	return prog, nil
}

func (p *Puller) remoteOptions(ctx context.Context) []remote.Option {
	kc := p.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(kc)}
	if p.Transport != nil {
		opts = append(opts, remote.WithTransport(p.Transport))
	}
	return opts
}

func (p *Puller) maxBytes() int64 {
	if p.MaxBytes > 0 {
		return p.MaxBytes
	}
	return DefaultMaxBytes
}

// lock serializes the pulls of one image.
func (p *Puller) lock(key string) func() {
	p.mu.Lock()
	if p.locks == nil {
		p.locks = map[string]*sync.Mutex{}
	}
	l, ok := p.locks[key]
	if !ok {
		l = &sync.Mutex{}
		p.locks[key] = l
	}
	p.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// tagAndDigest are the tag and the digest image names ("" for either
// not named): a reference may name both (repo:tag@sha256:…), and then
// the digest is what is pulled.
func tagAndDigest(image string, ref name.Reference) (tag, digest string) {
	switch r := ref.(type) {
	case name.Tag:
		return r.TagStr(), ""
	case name.Digest:
		digest = r.DigestStr()
		base := strings.TrimSuffix(image, "@"+digest)
		if t, err := name.NewTag(base, name.StrictValidation); err == nil && strings.Contains(base[strings.LastIndex(base, "/")+1:], ":") {
			tag = t.TagStr()
		}
	}
	return tag, digest
}

func nameOf(tag, digest string) string {
	if tag != "" {
		return tag + " (" + digest + ")"
	}
	return digest
}

// cached is what the cache keeps beside a program.
type cached struct {
	Args []string `json:"args"`
}

const (
	programFile = "function"
	argsFile    = "args.json"
)

func readCached(dir string) (Program, error) {
	b, err := os.ReadFile(filepath.Join(dir, argsFile))
	if err != nil {
		return Program{}, err
	}
	var c cached
	if err := json.Unmarshal(b, &c); err != nil {
		return Program{}, fmt.Errorf("%s: %w", filepath.Join(dir, argsFile), err)
	}
	path := filepath.Join(dir, programFile)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return Program{}, errors.Join(errors.New("no program in the cache"), err)
	}
	return Program{Path: path, Args: c.Args}, nil
}
