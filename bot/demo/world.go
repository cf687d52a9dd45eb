package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/settings"
)

// World is a running porchbot (service.Start, embedded local forge) and
// the people who use it: users act only through the forge's REST API
// (go-github) and git over HTTP (the git command), as they would on
// GitHub. Their traffic goes through a door of their own, a reverse proxy
// in front of the forge that counts it, so that what the bot did is the
// forge's count minus the users' (see Counts).
type World struct {
	Svc   *service.Service
	Forge *forge.Forge
	// WorkDir holds the users' clones.
	WorkDir string

	door     *door
	doorSrv  *http.Server
	clients  map[string]*github.Client
	clientMu sync.Mutex
	tokens   map[string]string
	stop     context.CancelFunc
}

// WorldOptions configure StartWorld.
type WorldOptions struct {
	// DataDir holds porchbot's git caches, the forge's repositories and
	// the users' clones. Required.
	DataDir string
	// Seed is the forge's seed file.
	Seed string
	// Listen and ForgeListen default to 127.0.0.1:0.
	Listen, ForgeListen string
	// Log receives porchbot's and the forge's logs; nil discards them.
	Log *logrus.Logger
	// Welcome receives the embedded forge's welcome text; nil discards it.
	Welcome io.Writer
	// Args are more `porchbot serve` flags.
	Args []string
}

// StartWorld starts porchbot on its embedded forge, exactly as `porchbot
// serve` does with no App credentials (the environment is not read: no
// credentials can leak in), with the periodic resync off so that only
// webhooks make it act. It owns DataDir's porchbot and users
// subdirectories and empties them first.
func StartWorld(ctx context.Context, o WorldOptions) (*World, error) {
	if o.DataDir == "" {
		return nil, errors.New("demo: a data directory is required")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.ForgeListen == "" {
		o.ForgeListen = "127.0.0.1:0"
	}
	log := o.Log
	if log == nil {
		log = logrus.New()
		log.SetOutput(io.Discard)
	}
	welcome := o.Welcome
	if welcome == nil {
		welcome = io.Discard
	}
	// What a previous world left here is not this one's.
	for _, sub := range []string{"porchbot", "users"} {
		if err := os.RemoveAll(filepath.Join(o.DataDir, sub)); err != nil {
			return nil, err
		}
	}
	args := append([]string{"--listen", o.Listen, "--forge-listen", o.ForgeListen,
		"--data-dir", filepath.Join(o.DataDir, "porchbot"), "--forge-seed", o.Seed, "--resync-interval", "0"}, o.Args...)
	s, err := settings.Parse(args, func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	svc, err := service.Start(ctx, s, log, welcome, "demo")
	if err != nil {
		cancel()
		return nil, err
	}
	w := &World{Svc: svc, Forge: svc.Embedded.Forge, WorkDir: filepath.Join(o.DataDir, "users"),
		clients: map[string]*github.Client{}, tokens: map[string]string{}, stop: cancel}
	for _, u := range svc.Embedded.Seed.Users {
		w.tokens[u.Login] = u.Token
	}
	if err := os.MkdirAll(w.WorkDir, 0o755); err != nil {
		_ = w.Close()
		return nil, err
	}
	if err := w.openDoor(); err != nil {
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

// Close stops porchbot (draining its queue), the forge and the users' door.
func (w *World) Close() error {
	var errs []error
	if w.doorSrv != nil {
		errs = append(errs, w.doorSrv.Close())
	}
	errs = append(errs, w.Svc.Close(context.Background()))
	w.stop()
	return errors.Join(errs...)
}

// Settle waits until the forge has delivered every webhook and porchbot
// has handled every event, including the events its own actions caused
// (the e2e harness's settle). A delivery porchbot refused is an error.
func (w *World) Settle(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for round := 0; round < 100; round++ {
		if err := w.Forge.WaitDeliveries(ctx); err != nil {
			return err
		}
		before := len(w.Forge.Deliveries())
		if err := w.Svc.Bot.WaitIdle(ctx); err != nil {
			return err
		}
		if err := w.Forge.WaitDeliveries(ctx); err != nil {
			return err
		}
		if len(w.Forge.Deliveries()) == before {
			for _, d := range w.Forge.Deliveries() {
				if !d.Dropped && d.Status != http.StatusAccepted && d.Status != http.StatusOK {
					return fmt.Errorf("porchbot answered the %s delivery %s with %d %s", d.Event, d.ID, d.Status, d.Err)
				}
			}
			return nil
		}
	}
	return errors.New("porchbot and the forge never settled (100 rounds of webhooks)")
}

// Token is a seeded user's personal token.
func (w *World) Token(user string) string { return w.tokens[user] }

// Client is a go-github client of a seeded user, through the users' door.
func (w *World) Client(user string) *github.Client {
	w.clientMu.Lock()
	defer w.clientMu.Unlock()
	if c, ok := w.clients[user]; ok {
		return c
	}
	c, err := github.NewClient(&http.Client{Timeout: 30 * time.Second}).WithAuthToken(w.tokens[user]).
		WithEnterpriseURLs(w.door.url+"/api/v3/", w.door.url+"/api/uploads/")
	if err != nil {
		panic(err) // the door's URL is always valid
	}
	w.clients[user] = c
	return c
}

// CloneURL is repo's git URL for user (through the users' door), with the
// user's token as the password.
func (w *World) CloneURL(user, repo string) string {
	return strings.Replace(w.door.url, "http://", "http://"+user+":"+w.tokens[user]+"@", 1) + "/" + repo + ".git"
}

// Clone clones repo as user into WorkDir/<user>/<name> and returns it.
func (w *World) Clone(ctx context.Context, user, repo, name string) (string, error) {
	dir := filepath.Join(w.WorkDir, user, name)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if _, err := w.Git(ctx, "", "clone", "-q", w.CloneURL(user, repo), dir); err != nil {
		return "", err
	}
	for _, kv := range [][2]string{{"user.name", user}, {"user.email", user + "@example.com"}} {
		if _, err := w.Git(ctx, dir, "config", kv[0], kv[1]); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Git runs the git command in dir with no global or system configuration
// and no prompts; its output, trimmed.
func (w *World) Git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "credential.helper=", "-c", "init.defaultBranch=main",
		"-c", "advice.detachedHead=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", redact(strings.Join(args, " ")), err, redact(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// redact hides tokens in git URLs of error messages.
func redact(s string) string {
	for {
		i := strings.Index(s, "http://")
		if i < 0 {
			return s
		}
		rest := s[i+len("http://"):]
		at, slash := strings.Index(rest, "@"), strings.Index(rest, "/")
		if at < 0 || (slash >= 0 && slash < at) {
			return s[:i+len("http://")] + redact(rest)
		}
		return s[:i+len("http://")] + "***@" + redact(rest[at+1:])
	}
}

// door is the users' way to the forge: a reverse proxy that counts what
// passes, with the forge's own keys for git ("GIT info-refs", ...) and
// "REST" for API calls.
type door struct {
	url    string
	mu     sync.Mutex
	counts map[string]int64
}

func (w *World) openDoor() error {
	target, err := url.Parse(w.Forge.BaseURL())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	d := &door{url: "http://" + ln.Addr().String(), counts: map[string]int64{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = nil
	w.door = d
	w.doorSrv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		d.count(r)
		proxy.ServeHTTP(rw, r)
	})}
	go func() { _ = w.doorSrv.Serve(ln) }()
	return nil
}

func (d *door) count(r *http.Request) {
	key := ""
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/api/"):
		key = "REST"
	case strings.HasSuffix(p, "/info/refs"):
		key = "GIT info-refs"
	case strings.HasSuffix(p, "/git-upload-pack"):
		key = "GIT upload-pack"
	case strings.HasSuffix(p, "/git-receive-pack"):
		key = "GIT receive-pack"
	default:
		key = "OTHER " + p
	}
	d.mu.Lock()
	d.counts[key]++
	d.mu.Unlock()
}

func (d *door) snapshot() map[string]int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]int64, len(d.counts))
	for k, v := range d.counts {
		out[k] = v
	}
	return out
}
