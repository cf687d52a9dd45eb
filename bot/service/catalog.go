package service

import (
	"context"
	"fmt"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	botcatalog "github.com/porchbot/porchbot/bot/catalog"
	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/internal/catalog"
	"github.com/porchbot/porchbot/internal/devforge"
	"github.com/porchbot/porchbot/internal/settings"
)

// catalogRetry is how long a repository whose view failed to load waits
// before the catalog tries again.
const catalogRetry = 10 * time.Second

// newCatalog assembles the web catalog (docs/catalog.md) over the running
// service's caches. In embedded mode it signs viewers in with the forge's
// App, whose callback URL it registers; listen is the address bound.
func (s *Service) newCatalog(st *settings.Settings, listen string, log logrus.FieldLogger) (*botcatalog.Server, error) {
	base := st.CatalogURL
	if base == "" && s.Embedded != nil {
		base = strings.TrimSuffix(devforge.WebhookURL(listen), ingress.HookPath)
	}
	clientID, secret := st.ClientID, string(st.ClientSecret)
	if s.Embedded != nil {
		clientID, secret = s.Embedded.Forge.AppOAuthClient()
		s.Embedded.Forge.SetAppCallbackURLs(base + botcatalog.CallbackPath)
	}
	web := s.Clients.URLs().Web
	// The catalog only reads: a repository not set up yet (onboarding) is
	// shown as its defaults read it.
	loader := &botcatalog.RepoLoader{Sessions: readingOpener{s.App.Opener}, Downstreams: s.App, Rollouts: s.App.Rollouts.Plans(), Web: web}
	views := &catalog.Cache{Loader: loader, MaxAge: st.CatalogRefresh, RetryAfter: catalogRetry, Log: log}
	srv, err := botcatalog.New(botcatalog.Options{
		Repos: &botcatalog.InstalledRepos{Clients: s.Clients, MaxAge: st.CatalogRefresh},
		Views: views, Git: s.Git, GitURL: s.Clients.URLs().GitURL,
		OAuth: &botcatalog.OAuth{ClientID: clientID, ClientSecret: secret, Web: web,
			CallbackURL: base + botcatalog.CallbackPath, HTTP: &http.Client{Timeout: 30 * time.Second}},
		Users:  func(ctx context.Context, token string) *github.Client { return s.Clients.Token(ctx, token) },
		Secure: strings.HasPrefix(base, "https://"), Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	s.CatalogURL = base
	return srv, nil
}

// withCatalog serves the bot's paths (webhooks, health, metrics) with the
// bot's routes and every other path with the catalog.
func withCatalog(botRoutes, cat http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case ingress.HookPath, ingress.HealthzPath, ingress.ReadyzPath, ingress.MetricsPath:
			botRoutes.ServeHTTP(w, r)
		default:
			cat.ServeHTTP(w, r)
		}
	})
}

// readingOpener opens repositories for reading, onboarded or not.
type readingOpener struct{ o *core.Opener }

func (r readingOpener) Open(ctx context.Context, repo core.Repo) (*core.Session, error) {
	return r.o.OpenUnconfigured(ctx, repo)
}
