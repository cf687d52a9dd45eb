// Package service assembles a running porchbot: the webhook server, the
// GitHub clients, the git caches, the package lifecycle behind the event
// handlers, the periodic resync and, with no App credentials, the embedded
// local forge. `porchbot serve`, the end-to-end tests and the demo all
// start porchbot through Start, so they run the same thing.
package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot"
	botcatalog "github.com/porchbot/porchbot/bot/catalog"
	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/internal/devforge"
	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/metrics"
	"github.com/porchbot/porchbot/internal/redeliver"
	"github.com/porchbot/porchbot/internal/settings"
)

// Service is a running porchbot: the HTTP listener, the bot and, in
// embedded mode, the local forge.
type Service struct {
	HookURL  string
	Bot      *ingress.Server
	HTTP     *http.Server
	Embedded *devforge.Embedded
	Clients  *ghclient.Clients
	Git      *gitstore.Store
	Metrics  *metrics.Metrics
	App      *bot.App
	// Redeliverer asks GitHub to redeliver failed webhooks each resync
	// pass (nil without App credentials).
	Redeliverer *redeliver.Redeliverer
	// CatalogURL is the web catalog's URL when it is served (docs/catalog.md).
	CatalogURL string
	Catalog    *botcatalog.Server
	log        *logrus.Logger

	resyncStop func()
	resyncDone chan struct{}
}

// Start listens, starts the embedded forge when there are no App
// credentials (otherwise checks them: the key parses, GET /app answers for
// the App id given), and serves until Close. The welcome text of the embedded
// mode goes to stdout.
func Start(ctx context.Context, s *settings.Settings, log *logrus.Logger, stdout io.Writer, version string) (*Service, error) {
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", s.Listen, err)
	}
	out := &Service{HookURL: devforge.WebhookURL(ln.Addr().String()), Metrics: metrics.New(), log: log}
	fail := func(err error) (*Service, error) {
		_ = ln.Close()
		if out.Embedded != nil {
			_ = out.Embedded.Forge.Close()
		}
		return nil, err
	}
	embedded, catalogOn := s.Embedded(), s.CatalogOn() // before the forge's credentials fill s
	if embedded {
		emb, err := devforge.Start(devforge.Options{Listen: s.ForgeListen, Dir: filepath.Join(s.DataDir, "forge"),
			SeedPath: s.ForgeSeed, SeedFrom: s.ForgeSeedFrom, WebhookURL: out.HookURL, WebhookSecret: s.WebhookSecret, Logger: log})
		if err != nil {
			return fail(fmt.Errorf("embedded forge: %w", err))
		}
		out.Embedded = emb
		s.AppID, s.PrivateKeyPEM, s.WebhookSecret = emb.AppID, emb.PrivateKeyPEM, emb.WebhookSecret
		s.GitHubURL = emb.Forge.BaseURL()
		s.MutationSpacing = 0 // the forge has no secondary limits to be polite to
	}
	if !embedded {
		if err := checkKey(s); err != nil {
			return fail(err)
		}
	}
	topts := ghclient.DefaultTransportOptions()
	topts.Logger, topts.Metrics, topts.MutationSpacing = log, out.Metrics, s.MutationSpacing
	out.Clients, err = ghclient.NewClients(ghclient.ClientsOptions{BaseURL: s.GitHubURL,
		App:              &ghclient.AppCredentials{AppID: s.AppID, PrivateKeyPEM: s.PrivateKeyPEM},
		TransportOptions: topts, UserAgent: "porchbot/" + version, Logger: log})
	if err != nil {
		return fail(err)
	}
	if !embedded {
		if err := checkApp(ctx, s, out.Clients); err != nil {
			return fail(err)
		}
	}
	out.Git, err = gitstore.New(gitstore.Options{Dir: filepath.Join(s.DataDir, "git"), Metrics: out.Metrics,
		Logger: log, Auth: gitstore.InstallationAuth(out.Clients)})
	if err != nil {
		return fail(err)
	}
	out.App = newApp(s, out.Clients, out.Git, out.Metrics, log)
	out.Redeliverer = redeliver.ForApp(out.Clients, log, redeliver.Options{Counter: out.Metrics.WebhookRedeliveries})
	out.App.Metrics = out.Metrics
	var cat *botcatalog.Server
	if catalogOn {
		if cat, err = out.newCatalog(s, ln.Addr().String(), log); err != nil {
			return fail(err)
		}
		out.Catalog = cat
	}
	handlers := out.App.Handlers()
	if cat != nil {
		handlers = cat.Invalidating(handlers) // the catalog reloads what an event changed
	}
	out.Bot, err = bot.NewServer(ingress.Options{WebhookSecret: s.WebhookSecret, MaxBodyBytes: s.MaxBodyBytes,
		QueueSize: s.QueueSize, Workers: s.Workers, DedupeSize: s.DedupeSize, Metrics: out.Metrics,
		Logger: log, Ready: appCheck(out.Clients), Handlers: handlers})
	if err != nil {
		return fail(err)
	}
	out.Bot.Start(ctx)
	if s.ResyncInterval > 0 {
		out.startResync(ctx, s.ResyncInterval)
	}
	handler := out.Bot.Routes()
	if cat != nil {
		handler = withCatalog(handler, cat.Handler())
	}
	out.HTTP = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
	go func() {
		if err := out.HTTP.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.WithError(err).Error("http server stopped")
		}
	}()
	log.WithFields(logrus.Fields{"listen": ln.Addr().String(), "github": s.GitHubURL, "app_id": s.AppID,
		"embedded_forge": embedded}).Info("porchbot serving")
	if out.Embedded != nil {
		out.Embedded.PrintWelcome(stdout, out.HookURL)
		if out.CatalogURL != "" {
			fmt.Fprintf(stdout, "Web catalog: %s/ (sign in with a forge user's login and token)\n\n", out.CatalogURL)
		}
	}
	return out, nil
}

// Close drains the queue (new deliveries get 503), stops the HTTP server
// and the embedded forge.
func (s *Service) Close(ctx context.Context) error {
	if s.resyncStop != nil {
		s.resyncStop()
		<-s.resyncDone
	}
	errs := []error{s.Bot.Shutdown(ctx), s.HTTP.Shutdown(ctx)}
	if s.App != nil {
		s.App.Dashboards.Close() // pending refreshes are dropped; the resync catches up
		_ = s.App.Dashboards.Wait(ctx)
	}
	s.Git.Close()
	if s.Embedded != nil {
		errs = append(errs, s.Embedded.Forge.Close())
	}
	return errors.Join(errs...)
}

// appCheck is the readiness check: the App's credentials work (GET /app).
// Success is remembered; failure is retried on the next probe.
func appCheck(c *ghclient.Clients) func(ctx context.Context) error {
	var mu sync.Mutex
	ok := false
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if ok {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if _, _, err := c.App(ctx).Apps.Get(ctx, ""); err != nil {
			return fmt.Errorf("GitHub App not reachable: %w", err)
		}
		ok = true
		return nil
	}
}
