package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

// Default bounds of ReadTree.
const (
	DefaultMaxTreeFiles       = 10_000
	DefaultMaxTreeBytes int64 = 256 << 20
)

// Options configures a Store.
type Options struct {
	// Dir is the root of the bare repository caches. Required; created if
	// missing. It must not be shared with another Store.
	Dir string
	// Auth returns the credentials for the repository "OWNER/REPO". It is
	// called before every fetch and push, so tokens can expire between
	// calls. Nil means anonymous access.
	Auth func(ctx context.Context, repo string) (transport.AuthMethod, error)
	// Metrics, if set, receives GitOperations counts.
	Metrics *metrics.Metrics
	// Logger defaults to logrus.StandardLogger().
	Logger logrus.FieldLogger
	// MaxTreeFiles bounds the number of files ReadTree returns (default
	// DefaultMaxTreeFiles).
	MaxTreeFiles int
	// MaxTreeBytes bounds the total size of the files ReadTree returns
	// (default DefaultMaxTreeBytes).
	MaxTreeBytes int64
	// MaxOpen bounds the repositories kept open between operations
	// (DefaultMaxOpen when 0; open_bound.go).
	MaxOpen int
	// AllowLocalAndSSH accepts file:// URLs, absolute local paths and SSH
	// remotes besides HTTP(S) (SSH authenticates with the SSH agent). For
	// the CLI only: the bot's remotes come from repository content and must
	// never reach the local disk.
	AllowLocalAndSSH bool
}

// Stats counts transport operations (requests to a remote) since New. Every
// Fetch and Push that reached the remote counts, whatever its outcome. It
// also counts what the caches' readers asked of their storage:
// ObjectReads, objects looked up by id (commits, trees, blobs, tags;
// answered from the object cache or the disk), and RefReads, references
// looked up by name (countingStorage).
type Stats struct {
	Fetches     int64
	Pushes      int64
	ObjectReads int64
	RefReads    int64
}

// Store manages the bare caches under Options.Dir.
type Store struct {
	opts Options
	log  logrus.FieldLogger

	mu     sync.Mutex
	repos  map[string]*repoEntry // by cache path
	open   openSet               // the repositories open now (open_bound.go)
	closed bool

	fetches atomic.Int64
	pushes  atomic.Int64
	reads   readCounts
}

// New validates opts and creates Options.Dir.
func New(opts Options) (*Store, error) {
	if opts.Dir == "" {
		return nil, errors.New("gitstore: Options.Dir is required")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("gitstore: cache directory %q: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("gitstore: create cache directory: %w", err)
	}
	opts.Dir = dir
	if opts.MaxTreeFiles <= 0 {
		opts.MaxTreeFiles = DefaultMaxTreeFiles
	}
	if opts.MaxTreeBytes <= 0 {
		opts.MaxTreeBytes = DefaultMaxTreeBytes
	}
	log := opts.Logger
	if log == nil {
		log = logrus.StandardLogger()
	}
	return &Store{
		opts:  opts,
		log:   log.WithField("component", "gitstore"),
		repos: make(map[string]*repoEntry),
	}, nil
}

// Repo returns the cache of the repository at remoteURL
// (http(s)://HOST/OWNER/REPO[.git]), creating the bare repository
// Dir/HOST/OWNER/REPO.git when the first operation runs. It does not
// contact the remote.
func (s *Store) Repo(remoteURL string) (*Cache, error) {
	loc, err := s.locate(remoteURL)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	e, ok := s.repos[loc.path]
	if !ok {
		e = newRepoEntry(loc.path, &s.reads)
		s.repos[loc.path] = e
	}
	return &Cache{store: s, entry: e, loc: loc}, nil
}

// Fetch is Repo followed by Cache.Fetch.
func (s *Store) Fetch(ctx context.Context, remoteURL string, refspecs ...config.RefSpec) (*Cache, error) {
	c, err := s.Repo(remoteURL)
	if err != nil {
		return nil, err
	}
	if err := c.Fetch(ctx, refspecs...); err != nil {
		return nil, err
	}
	return c, nil
}

// Stats returns the transport operation counts.
func (s *Store) Stats() Stats {
	return Stats{Fetches: s.fetches.Load(), Pushes: s.pushes.Load(),
		ObjectReads: s.reads.objects.Load(), RefReads: s.reads.refs.Load()}
}

// Close waits for running operations, releases open files and makes every
// later call return ErrClosed. It is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	entries := make([]*repoEntry, 0, len(s.repos))
	for _, e := range s.repos {
		entries = append(entries, e)
	}
	s.mu.Unlock()

	for _, e := range entries {
		e.close(s.log)
	}
}

// Outcomes of GitOperations.
const (
	outcomeOK          = "ok"
	outcomeUpToDate    = "up_to_date"
	outcomeLeaseBroken = "lease_broken"
	outcomeError       = "error"
)

func (s *Store) observe(operation, outcome string) {
	if s.opts.Metrics != nil {
		s.opts.Metrics.GitOperations.WithLabelValues(operation, outcome).Inc()
	}
}
