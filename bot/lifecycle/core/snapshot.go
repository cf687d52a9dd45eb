package core

import (
	"context"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// What a session reads from the git cache, read once. Many steps of one
// event ask the same questions — the deployment branch's head, the
// configuration file, a package's Kptfile, which packages a commit
// changed — and the events after it ask most of them again of the same
// commits. Two memories answer them:
//
//   - the session's own: the refs it resolved, for as long as no fetch
//     or push moved refs in the cache (gitstore.Cache.RefGeneration: a
//     push by this session, or a fetch by any);
//   - the process's (Facts, one per Opener, shared by its sessions):
//     answers that a commit or tree id fixes for ever — a file at a commit,
//     a package's state at a commit, the packages a pair of trees
//     differs in (LandingMemo). Hashes and bytes only, never objects
//     bound to an open repository.
//
// Each is bounded; a full memory of the process starts over, a full
// session stops adding.

// Bounds of the memories.
const (
	factsMaxFiles     = 4096
	factsMaxFileBytes = 16 << 20
	snapshotMaxRefs   = 4096
)

// Facts are the content-addressed answers of a process's sessions: files
// at commits and what landing walkers found. Safe for concurrent use; the
// zero value is ready.
type Facts struct {
	mu        sync.Mutex
	files     map[factsFileKey]factsFile
	fileBytes int
	landings  LandingMemo
}

type factsFileKey struct {
	commit plumbing.Hash
	path   string
}

type factsFile struct {
	data []byte
	ok   bool
}

func (f *Facts) file(commit plumbing.Hash, path string) (factsFile, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.files[factsFileKey{commit, path}]
	return r, ok
}

func (f *Facts) keepFile(commit plumbing.Hash, path string, data []byte, ok bool) {
	if len(data) > factsMaxFileBytes/16 {
		return // a file that big is read when asked for
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.files == nil || len(f.files) >= factsMaxFiles || f.fileBytes+len(data) > factsMaxFileBytes {
		f.files, f.fileBytes = map[factsFileKey]factsFile{}, 0
	}
	f.files[factsFileKey{commit, path}] = factsFile{data: data, ok: ok}
	f.fileBytes += len(data)
}

// snapshot is a session's memory of its reads; its zero value has a
// Facts of its own (a session not made by an Opener).
type snapshot struct {
	facts *Facts
	own   Facts
	// off: remember nothing (Opener.ReadThrough).
	off bool

	mu     sync.Mutex
	refGen uint64
	refs   map[string]plumbing.Hash
}

// shared is the Facts the session reads through.
func (m *snapshot) shared() *Facts {
	if m.off {
		return &Facts{}
	}
	if m.facts != nil {
		return m.facts
	}
	return &m.own
}

// ref is what name resolved to at generation gen, if remembered; refs
// remembered at another generation are forgotten.
func (m *snapshot) ref(gen uint64, name string) (plumbing.Hash, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refGen != gen {
		m.refs, m.refGen = nil, gen
	}
	h, ok := m.refs[name]
	return h, ok
}

func (m *snapshot) keepRef(gen uint64, name string, h plumbing.Hash) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off || m.refGen != gen || len(m.refs) >= snapshotMaxRefs {
		return
	}
	if m.refs == nil {
		m.refs = map[string]plumbing.Hash{}
	}
	m.refs[name] = h
}

// ResolveRef is the git cache's ResolveRef (gitstore.Cache.ResolveRef),
// remembered by the session until refs move in the cache. A ref that does
// not resolve is asked again each time.
func (s *Session) ResolveRef(ctx context.Context, name string) (plumbing.Hash, error) {
	gen := s.Git.RefGeneration()
	if h, ok := s.snap.ref(gen, name); ok {
		return h, nil
	}
	h, err := s.Git.ResolveRef(ctx, name)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	s.snap.keepRef(gen, name, h)
	return h, nil
}
