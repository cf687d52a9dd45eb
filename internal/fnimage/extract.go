package fnimage

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// maxLinks bounds the symbolic links followed to the entrypoint.
const maxLinks = 16

// extract pulls img's layers into a work directory beside dir, each
// checked against its digest, finds the program the image's entrypoint
// names in the image's file system (upper layers first, whiteouts
// honoured, links followed) and moves it and its arguments into dir.
func (p *Puller) extract(img v1.Image, dir string) (Program, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return Program{}, fmt.Errorf("read the image config: %w", err)
	}
	argv := append(append([]string{}, cfg.Config.Entrypoint...), cfg.Config.Cmd...)
	if len(argv) == 0 {
		return Program{}, errors.New("the image names no entrypoint or command")
	}
	if err := os.MkdirAll(p.Cache, 0o700); err != nil {
		return Program{}, fmt.Errorf("the function image cache: %w", err)
	}
	work, err := os.MkdirTemp(p.Cache, ".pull-")
	if err != nil {
		return Program{}, fmt.Errorf("the function image cache: %w", err)
	}
	defer os.RemoveAll(work)
	layers, err := p.fetchLayers(img, work)
	if err != nil {
		return Program{}, err
	}
	target, err := entrypointPath(argv[0], cfg.Config.Env, cfg.Config.WorkingDir, layers)
	if err != nil {
		return Program{}, err
	}
	out := filepath.Join(work, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		return Program{}, err
	}
	if err := copyFile(layers, target, filepath.Join(out, programFile), p.maxBytes()); err != nil {
		return Program{}, err
	}
	b, err := json.Marshal(cached{Args: argv[1:]})
	if err != nil {
		return Program{}, err
	}
	if err := os.WriteFile(filepath.Join(out, argsFile), b, 0o600); err != nil {
		return Program{}, err
	}
	os.RemoveAll(dir) // a partial entry of an earlier pull
	if err := os.Rename(out, dir); err != nil {
		return Program{}, fmt.Errorf("the function image cache: %w", err)
	}
	return Program{Path: filepath.Join(dir, programFile), Args: argv[1:]}, nil
}

// fetchLayers writes each compressed layer to work, bottom first, and
// checks each against its digest (sha256).
func (p *Puller) fetchLayers(img v1.Image, work string) ([]string, error) {
	ls, err := img.Layers()
	if err != nil {
		return nil, fmt.Errorf("list the layers: %w", err)
	}
	left := p.maxBytes()
	var files []string
	for i, l := range ls {
		want, err := l.Digest()
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
		if want.Algorithm != "sha256" {
			return nil, fmt.Errorf("layer %d: digest algorithm %s is not sha256", i, want.Algorithm)
		}
		rc, err := l.Compressed()
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", want, err)
		}
		f := filepath.Join(work, fmt.Sprintf("layer-%03d", i))
		n, sum, err := writeHashed(f, rc, left+1)
		rc.Close()
		switch {
		case err != nil:
			return nil, fmt.Errorf("layer %s: %w", want, err)
		case n > left:
			return nil, fmt.Errorf("the image's layers are over %d bytes", p.maxBytes())
		case sum != want.Hex:
			return nil, fmt.Errorf("layer %s: its content has digest sha256:%s", want, sum)
		}
		left -= n
		files = append(files, f)
	}
	return files, nil
}

func writeHashed(path string, r io.Reader, limit int64) (int64, string, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, limit))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// entrypointPath is the absolute path in the image of the program argv0
// names: as written when absolute, else looked up in the image's PATH
// (or, with a slash, under its working directory).
func entrypointPath(argv0 string, env []string, workdir string, layers []string) (string, error) {
	if path.IsAbs(argv0) {
		return path.Clean(argv0), nil
	}
	if strings.Contains(argv0, "/") {
		return path.Join("/", workdir, argv0), nil
	}
	dirs := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			dirs = v
		}
	}
	for _, d := range strings.Split(dirs, ":") {
		if d == "" {
			continue
		}
		p := path.Join("/", d, argv0)
		if _, err := lookup(layers, p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("the entrypoint %q is on no directory of the image's PATH (%s)", argv0, dirs)
}

// found is a regular file of the image: its layer and name there.
type found struct {
	layer string
	name  string
}

// lookup finds the regular file at p in the image's file system, links
// followed.
func lookup(layers []string, p string) (found, error) {
	for hop := 0; hop <= maxLinks; hop++ {
		h, layer, err := entry(layers, p)
		if err != nil {
			return found{}, err
		}
		switch h.Typeflag {
		case tar.TypeReg:
			return found{layer: layer, name: h.Name}, nil
		case tar.TypeSymlink:
			if path.IsAbs(h.Linkname) {
				p = path.Clean(h.Linkname)
			} else {
				p = path.Join(path.Dir(p), h.Linkname)
			}
		case tar.TypeLink:
			p = path.Join("/", h.Linkname)
		default:
			return found{}, fmt.Errorf("%s in the image is not a regular file", p)
		}
	}
	return found{}, fmt.Errorf("more than %d links lead to the entrypoint", maxLinks)
}

// entry is the header of p in the image's file system: the uppermost
// layer that has it, unless a layer above deleted it (a whiteout of it or
// of a directory above it, or an opaque directory above it).
func entry(layers []string, p string) (*tar.Header, string, error) {
	for i := len(layers) - 1; i >= 0; i-- {
		h, gone, err := scanLayer(layers[i], p)
		if err != nil {
			return nil, "", err
		}
		if h != nil {
			return h, layers[i], nil
		}
		if gone {
			break
		}
	}
	return nil, "", fmt.Errorf("%s is not in the image", p)
}

// scanLayer looks for p in one layer: its header, or whether the layer
// deletes p from the layers below.
func scanLayer(file, p string) (h *tar.Header, gone bool, err error) {
	err = readTar(file, func(hdr *tar.Header, _ io.Reader) (bool, error) {
		n := path.Join("/", hdr.Name)
		dir, base := path.Split(n)
		switch {
		case n == p:
			h = hdr
			return true, nil
		case base == ".wh..wh..opq":
			if strings.HasPrefix(p, dir) {
				gone = true
			}
		case strings.HasPrefix(base, ".wh."):
			if w := dir + strings.TrimPrefix(base, ".wh."); p == w || strings.HasPrefix(p, w+"/") {
				gone = true
			}
		}
		return false, nil
	})
	if h != nil {
		gone = false
	}
	return h, gone, err
}

// copyFile writes the program at target to dst, executable.
func copyFile(layers []string, target, dst string, limit int64) error {
	f, err := lookup(layers, target)
	if err != nil {
		return err
	}
	return readTar(f.layer, func(hdr *tar.Header, r io.Reader) (bool, error) {
		if hdr.Name != f.name {
			return false, nil
		}
		if hdr.Size > limit {
			return true, fmt.Errorf("the entrypoint is %d bytes, over %d", hdr.Size, limit)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
		if err != nil {
			return true, err
		}
		if _, err := io.Copy(out, io.LimitReader(r, limit)); err != nil {
			out.Close()
			return true, err
		}
		return true, out.Close()
	})
}

// readTar calls fn on each entry of a layer file (gzip or plain tar)
// until fn says it is done.
func readTar(file string, fn func(*tar.Header, io.Reader) (bool, error)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("a layer: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("a layer: %w", err)
		}
		if done, err := fn(hdr, tr); done || err != nil {
			return err
		}
	}
}
