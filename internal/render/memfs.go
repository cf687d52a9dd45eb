package render

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// NewMemFS is an in-memory file system for rendering. Unlike kyaml's
// filesys.MakeFsInMemory, which refuses any name outside [a-zA-Z0-9-_.:]
// ("café/", "extra+dev.yaml"), it holds every name git and kpt accept: any
// bytes but "/" and NUL in a path element. Paths are absolute and
// slash-separated ("/" is the root; a relative path is taken from it).
func NewMemFS() filesys.FileSystem {
	return &memFS{files: map[string][]byte{}, dirs: map[string]bool{"/": true}}
}

type memFS struct {
	mu    sync.RWMutex
	files map[string][]byte
	dirs  map[string]bool
}

var _ filesys.FileSystem = (*memFS)(nil)

// clean makes p absolute and clean.
func (m *memFS) clean(p string) string {
	return filepath.Clean("/" + filepath.ToSlash(p))
}

func (m *memFS) Create(p string) (filesys.File, error) {
	if err := m.WriteFile(p, nil); err != nil {
		return nil, err
	}
	return &memFile{fs: m, path: m.clean(p), write: true}, nil
}

func (m *memFS) Mkdir(p string) error {
	p = m.clean(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[filepath.Dir(p)] {
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrNotExist}
	}
	return m.mkdirAllLocked(p)
}

func (m *memFS) MkdirAll(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mkdirAllLocked(m.clean(p))
}

func (m *memFS) mkdirAllLocked(p string) error {
	for d := p; ; d = filepath.Dir(d) {
		if _, isFile := m.files[d]; isFile {
			return &fs.PathError{Op: "mkdir", Path: d, Err: fs.ErrExist}
		}
		if d == "/" {
			break
		}
	}
	for d := p; !m.dirs[d]; d = filepath.Dir(d) {
		m.dirs[d] = true
	}
	return nil
}

func (m *memFS) RemoveAll(p string) error {
	p = m.clean(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	prefix := strings.TrimSuffix(p, "/") + "/"
	delete(m.files, p)
	for f := range m.files {
		if strings.HasPrefix(f, prefix) {
			delete(m.files, f)
		}
	}
	for d := range m.dirs {
		if d != "/" && (d == p || strings.HasPrefix(d, prefix)) {
			delete(m.dirs, d)
		}
	}
	return nil
}

func (m *memFS) Open(p string) (filesys.File, error) {
	p = m.clean(p)
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.dirs[p] {
		return &memFile{fs: m, path: p, dir: true}, nil
	}
	data, ok := m.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return &memFile{fs: m, path: p, r: bytes.NewReader(data)}, nil
}

func (m *memFS) IsDir(p string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.dirs[m.clean(p)]
}

func (m *memFS) Exists(p string) bool {
	p = m.clean(p)
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, isFile := m.files[p]
	return isFile || m.dirs[p]
}

// children lists the names directly in dir, sorted.
func (m *memFS) childrenLocked(dir string) []string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	add := func(p string) {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	for f := range m.files {
		add(f)
	}
	for d := range m.dirs {
		add(d)
	}
	sort.Strings(out)
	return out
}

func (m *memFS) ReadDir(p string) ([]string, error) {
	p = m.clean(p)
	m.mu.RLock()
	defer m.mu.RUnlock()
	if !m.dirs[p] {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	return m.childrenLocked(p), nil
}

func (m *memFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	p = m.clean(p)
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.dirs[p] {
		return filesys.ConfirmedDir(p), "", nil
	}
	if _, ok := m.files[p]; ok {
		return filesys.ConfirmedDir(filepath.Dir(p)), filepath.Base(p), nil
	}
	return "", "", fmt.Errorf("%s does not exist", p)
}

func (m *memFS) Glob(pattern string) ([]string, error) {
	pattern = m.clean(pattern)
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for _, set := range []map[string]bool{m.dirs, m.fileSet()} {
		for p := range set {
			if ok, _ := filepath.Match(pattern, p); ok {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *memFS) fileSet() map[string]bool {
	s := make(map[string]bool, len(m.files))
	for p := range m.files {
		s[p] = true
	}
	return s
}

func (m *memFS) ReadFile(p string) ([]byte, error) {
	p = m.clean(p)
	m.mu.RLock()
	defer m.mu.RUnlock()
	data, ok := m.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	return bytes.Clone(data), nil
}

// WriteFile writes a file, making its parent directories as kyaml's
// in-memory file system does.
func (m *memFS) WriteFile(p string, data []byte) error {
	p = m.clean(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs[p] {
		return &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("is a directory")}
	}
	if err := m.mkdirAllLocked(filepath.Dir(p)); err != nil {
		return err
	}
	m.files[p] = bytes.Clone(data)
	return nil
}

// Walk visits p and everything below it in lexical order, as filepath.Walk
// does (filepath.SkipDir and filepath.SkipAll honoured).
func (m *memFS) Walk(p string, walkFn filepath.WalkFunc) error {
	err := m.walk(m.clean(p), walkFn)
	if err == filepath.SkipDir || err == filepath.SkipAll { //nolint:errorlint // sentinels, as filepath.Walk
		return nil
	}
	return err
}

func (m *memFS) walk(p string, walkFn filepath.WalkFunc) error {
	info, err := m.stat(p)
	if err != nil {
		return walkFn(p, nil, err)
	}
	if err := walkFn(p, info, nil); err != nil {
		if info.IsDir() && err == filepath.SkipDir { //nolint:errorlint
			return nil
		}
		return err
	}
	if !info.IsDir() {
		return nil
	}
	m.mu.RLock()
	names := m.childrenLocked(p)
	m.mu.RUnlock()
	for _, name := range names {
		child := filepath.Join(p, name)
		if err := m.walk(child, walkFn); err != nil {
			if err == filepath.SkipDir { //nolint:errorlint
				if ci, _ := m.stat(child); ci == nil || !ci.IsDir() {
					return nil // SkipDir on a file skips the rest of its directory
				}
				continue
			}
			return err
		}
	}
	return nil
}

func (m *memFS) stat(p string) (os.FileInfo, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.dirs[p] {
		return memInfo{name: filepath.Base(p), dir: true}, nil
	}
	if data, ok := m.files[p]; ok {
		return memInfo{name: filepath.Base(p), size: int64(len(data))}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

// memFile is an open file of a memFS: a reader of its content, or a
// writer that stores what is written on every Write.
type memFile struct {
	fs    *memFS
	path  string
	dir   bool
	write bool
	r     *bytes.Reader
	buf   bytes.Buffer
}

func (f *memFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.Read(p)
}

func (f *memFile) Write(p []byte) (int, error) {
	if !f.write {
		return 0, &fs.PathError{Op: "write", Path: f.path, Err: fs.ErrPermission}
	}
	n, _ := f.buf.Write(p)
	return n, f.fs.WriteFile(f.path, f.buf.Bytes())
}

func (f *memFile) Close() error { return nil }

func (f *memFile) Stat() (os.FileInfo, error) { return f.fs.stat(f.path) }

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
