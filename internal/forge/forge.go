// Package forge is a GitHub-compatible server for trying porchbot without
// an account and for every end-to-end test and benchmark: GitHub's REST
// API (the endpoints the bot uses, under /api/v3 as on GitHub Enterprise
// Server, with GitHub's JSON shapes), git smart HTTP backed by real bare
// repositories on disk, signed webhooks shaped like GitHub's, per-endpoint
// call counts and fault injection.
//
// The bot's real go-github and go-git clients talk to it unchanged.
package forge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
)

// Options configure a Forge.
type Options struct {
	// Dir holds the bare git repositories. Required.
	Dir string
	// Logger; nil means a discarding logger.
	Logger logrus.FieldLogger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// GitBinary is the git executable; default "git".
	GitBinary string
}

// Forge is the local GitHub. Create it with New, serve Handler() (or call
// Start), seed it with Seed or the Add* methods.
type Forge struct {
	opts Options
	log  logrus.FieldLogger
	git  *gitCLI

	mu            sync.RWMutex
	baseURL       string              // http://host:port, no trailing slash
	accounts      map[string]*Account // lower-cased login
	orgs          map[string]*Org
	repos         map[string]*Repo // lower-cased "owner/name"
	tokens        map[string]*principal
	app           *AppInfo
	installations map[int64]*Installation
	tokenLifetime time.Duration
	rate          rateBudget

	nextID atomic.Int64
	clock  atomic.Pointer[func() time.Time] // SetClock's, else opts.Now (clock.go)

	stats  *Stats
	faults *faultInjector
	hooks  *deliverer

	repoHooks hookStore

	appManifests appManifests         // App manifests waiting for their conversion (web_app_manifests.go)
	appHold      appHold              // a running embedded porchbot holds the App (app_hold.go)
	oauth        expiring[oauthGrant] // the App's user authorization codes (web_oauth.go)
	sessions     expiring[webSession] // browsers signed in to the web pages (web_session.go)

	webAPIOnce   sync.Once
	webAPIRouter http.Handler // the REST API the web pages read (web.go)

	server   *http.Server
	unused   newConns // connections that sent no request (Close)
	listener net.Listener
}

// New returns an empty forge storing repositories under opts.Dir.
func New(opts Options) (*Forge, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("forge: Options.Dir is required")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("forge: create %s: %w", opts.Dir, err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.GitBinary == "" {
		opts.GitBinary = "git"
	}
	log := opts.Logger
	if log == nil {
		l := logrus.New()
		l.Out = discard{}
		log = l
	}
	f := &Forge{
		opts:          opts,
		log:           log.WithField("component", "forge"),
		git:           &gitCLI{bin: opts.GitBinary},
		accounts:      map[string]*Account{},
		orgs:          map[string]*Org{},
		repos:         map[string]*Repo{},
		tokens:        map[string]*principal{},
		installations: map[int64]*Installation{},
		stats:         newStats(),
		faults:        newFaultInjector(),
		baseURL:       "http://forge.invalid",
	}
	f.nextID.Store(1000)
	f.hooks = newDeliverer(f)
	f.rate.repos = func(inst *Installation) int { return len(f.reposOf(inst.Account.Login)) }
	return f, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// newID hands out GitHub-style numeric ids, unique across all objects.
func (f *Forge) newID() int64 { return f.nextID.Add(1) }

func (f *Forge) now() time.Time { return f.clockNow().UTC().Truncate(time.Second) }

// Start listens on addr (e.g. "127.0.0.1:0") and serves in the background.
// BaseURL reports the address actually bound.
func (f *Forge) Start(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("forge: listen %s: %w", addr, err)
	}
	f.listener = ln
	f.SetBaseURL("http://" + ln.Addr().String())
	f.server = &http.Server{Handler: f.Handler(), ReadHeaderTimeout: 10 * time.Second, ConnState: f.unused.track}
	go func() {
		if err := f.server.Serve(ln); err != nil && err != http.ErrServerClosed {
			f.log.WithError(err).Error("forge server stopped")
		}
	}()
	f.hooks.start()
	return nil
}

// SetBaseURL sets the URL the forge's answers link to (when served by
// something other than Start, e.g. httptest).
func (f *Forge) SetBaseURL(u string) {
	f.mu.Lock()
	f.baseURL = strings.TrimRight(u, "/")
	f.mu.Unlock()
	f.hooks.start()
}

// BaseURL is the forge's root, e.g. http://127.0.0.1:3000. The REST API is
// under BaseURL()+"/api/v3/", git under BaseURL()+"/<owner>/<repo>.git".
func (f *Forge) BaseURL() string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.baseURL
}

// APIURL is the REST API base with a trailing slash.
func (f *Forge) APIURL() string { return f.BaseURL() + "/api/v3/" }

// Close stops the server and the webhook deliverer.
func (f *Forge) Close() error {
	f.hooks.stop()
	if f.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.unused.closeAll()
		return f.server.Shutdown(ctx)
	}
	return nil
}

// repoPath is where a repository's bare git directory lives.
func (f *Forge) repoPath(owner, name string) string {
	return filepath.Join(f.opts.Dir, strings.ToLower(owner), strings.ToLower(name)+".git")
}

// Repo returns a repository by "owner/name" (case-insensitive).
func (f *Forge) Repo(fullName string) (*Repo, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	r, ok := f.repos[strings.ToLower(fullName)]
	return r, ok
}

// Account returns a user, organisation or bot by login.
func (f *Forge) Account(login string) (*Account, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	a, ok := f.accounts[strings.ToLower(login)]
	return a, ok
}

// reposOf lists an owner's repositories.
func (f *Forge) reposOf(owner string) []*Repo {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []*Repo
	for _, r := range f.repos {
		if strings.EqualFold(r.Owner.Login, owner) {
			out = append(out, r)
		}
	}
	sortRepos(out)
	return out
}

// accountNamed and repoNamed are the Go API's lookups, with the errors it
// reports.
func (f *Forge) accountNamed(login string) (*Account, error) {
	a, ok := f.Account(login)
	if !ok {
		return nil, fmt.Errorf("forge: no account %q", login)
	}
	return a, nil
}

func (f *Forge) repoNamed(fullName string) (*Repo, error) {
	r, ok := f.Repo(fullName)
	if !ok {
		return nil, fmt.Errorf("forge: no repository %q", fullName)
	}
	return r, nil
}
