package github

import (
	"context"
	"crypto/rsa"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"
)

// DefaultUserAgent is sent when ClientsOptions.UserAgent is empty; GitHub
// asks API clients to identify themselves.
const DefaultUserAgent = "porchbot"

// GitTokenUser is the HTTP basic-auth user name that goes with an
// installation token for git over HTTPS.
const GitTokenUser = "x-access-token"

// ClientsOptions configure NewClients.
type ClientsOptions struct {
	// BaseURL selects github.com, a GHES host or the local forge; see
	// ParseBaseURL.
	BaseURL string
	// App holds the GitHub App credentials. Nil leaves only Token clients;
	// App and Installation clients then fail with ErrNoAppCredentials.
	App *AppCredentials
	// Transport is the RoundTripper all clients share, under their
	// authentication. Nil builds one with NewTransport(TransportOptions).
	Transport http.RoundTripper
	// TransportOptions configure the transport built when Transport is nil.
	// Use DefaultTransportOptions() against GitHub: its zero value disables
	// mutation spacing and per-attempt timeouts.
	TransportOptions TransportOptions
	// UserAgent is sent with every API request. Default DefaultUserAgent.
	UserAgent string
	// Logger is used for client-level messages. Default
	// logrus.StandardLogger().
	Logger logrus.FieldLogger
	// ConditionalBytes bounds the answers kept to revalidate GETs of the
	// App and its installations with If-None-Match (conditional.go): 0 is
	// DefaultConditionalBytes, negative turns conditional requests off.
	ConditionalBytes int64
}

// Clients hands out go-github clients for one GitHub (github.com, a GHES host
// or the local forge): as the app, as one of its installations, or with a
// plain token. Installation tokens are cached per installation and refreshed
// by ghinstallation a minute before they expire. Clients is safe for
// concurrent use.
type Clients struct {
	urls      URLs
	rt        http.RoundTripper
	userAgent string
	log       logrus.FieldLogger

	appID int64
	key   *rsa.PrivateKey // nil without app credentials

	cond *ConditionalCache // nil: no conditional requests

	mu                sync.Mutex
	installations     map[int64]*installation
	repoInstallations map[string]int64 // lower-case "owner/repo" → installation ID
}

// NewClients validates opts, derives the URLs and builds the shared transport.
func NewClients(opts ClientsOptions) (*Clients, error) {
	urls, err := ParseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Clients{
		urls:              urls,
		rt:                opts.Transport,
		userAgent:         opts.UserAgent,
		log:               opts.Logger,
		installations:     make(map[int64]*installation),
		repoInstallations: make(map[string]int64),
	}
	if c.log == nil {
		c.log = logrus.StandardLogger()
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.rt == nil {
		to := opts.TransportOptions
		if to.Logger == nil {
			to.Logger = c.log
		}
		c.rt = NewTransport(to)
	}
	if opts.ConditionalBytes >= 0 {
		c.cond = NewConditionalCache(opts.ConditionalBytes)
	}
	if opts.App != nil {
		key, err := opts.App.parse()
		if err != nil {
			return nil, err
		}
		c.appID, c.key = opts.App.AppID, key
	}
	// Check once that go-github accepts the URLs, so building a client
	// later cannot fail.
	if _, err := c.newClient(http.DefaultTransport); err != nil {
		return nil, err
	}
	return c, nil
}

// URLs returns the API, uploads and git base URLs in use.
func (c *Clients) URLs() URLs { return c.urls }

// Transport returns the RoundTripper every client shares.
func (c *Clients) Transport() http.RoundTripper { return c.rt }

// HasApp reports whether GitHub App credentials were configured.
func (c *Clients) HasApp() bool { return c.key != nil }

// AppID returns the GitHub App's ID, 0 without credentials.
func (c *Clients) AppID() int64 { return c.appID }

// App returns a client authenticated as the GitHub App itself (a short-lived
// RS256 JWT, "Authorization: Bearer <jwt>"), for app-level endpoints such as
// listing installations. Without credentials its calls fail with
// ErrNoAppCredentials.
func (c *Clients) App(ctx context.Context) *github.Client {
	if c.key == nil {
		return c.mustClient(errTransport{ErrNoAppCredentials})
	}
	return c.mustClient(c.conditional("app", c.appsTransport()))
}

// Conditional is the cache of revalidated answers (nil when off).
func (c *Clients) Conditional() *ConditionalCache { return c.cond }

// conditional wraps rt in the conditional cache for one caller.
func (c *Clients) conditional(scope string, rt http.RoundTripper) http.RoundTripper {
	if c.cond == nil {
		return rt
	}
	return c.cond.Transport(scope, rt)
}

// Installation returns a client authenticated as installation id
// ("Authorization: token <installation token>"). The token is minted on
// first use, cached, and refreshed shortly before it expires; clients for
// the same installation share it.
func (c *Clients) Installation(ctx context.Context, installationID int64) (*github.Client, error) {
	inst, err := c.installation(installationID)
	if err != nil {
		return nil, err
	}
	client, err := c.newClient(c.conditional("installation:"+strconv.FormatInt(installationID, 10), installationAuth{inst: inst, next: c.rt}))
	if err != nil {
		return nil, fmt.Errorf("github: installation %d client: %w", installationID, err)
	}
	return client, nil
}

// InstallationToken returns installation id's current access token and its
// expiry, minting or refreshing it if needed. It is the password for git over
// HTTPS, with GitTokenUser as the user name.
func (c *Clients) InstallationToken(ctx context.Context, installationID int64) (string, time.Time, error) {
	inst, err := c.installation(installationID)
	if err != nil {
		return "", time.Time{}, err
	}
	return inst.token(ctx)
}

// ForgetInstallation drops what is cached about an installation (its token,
// and which repositories it covers), e.g. after the app was uninstalled from
// it or repositories were removed from it.
func (c *Clients) ForgetInstallation(installationID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.installations, installationID)
	for repo, id := range c.repoInstallations {
		if id == installationID {
			delete(c.repoInstallations, repo)
		}
	}
}

// Token returns a client authenticated with a plain token (a personal access
// token, or a token of the local forge), sent as "Authorization: Bearer".
func (c *Clients) Token(ctx context.Context, token string) *github.Client {
	return c.mustClient(c.rt).WithAuthToken(token)
}

// appsTransport returns a fresh app-JWT transport over the shared one.
func (c *Clients) appsTransport() *ghinstallation.AppsTransport {
	atr := ghinstallation.NewAppsTransportFromPrivateKey(c.rt, c.appID, c.key)
	atr.BaseURL = c.urls.APIBase()
	return atr
}

// installation returns the cached state of an installation, creating it on
// first use.
//
// Each installation gets its own AppsTransport: ghinstallation's token
// refresh writes to the AppsTransport it was built from (BaseURL, Client)
// under the installation's own lock, so a shared one would race when two
// installations refresh at once.
func (c *Clients) installation(installationID int64) (*installation, error) {
	if c.key == nil {
		return nil, ErrNoAppCredentials
	}
	if installationID <= 0 {
		return nil, fmt.Errorf("github: installation ID must be positive, got %d", installationID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if inst, ok := c.installations[installationID]; ok {
		return inst, nil
	}
	inst := &installation{
		id:  installationID,
		itr: ghinstallation.NewFromAppsTransport(c.appsTransport(), installationID),
	}
	c.installations[installationID] = inst
	return inst, nil
}

// newClient builds a go-github client over rt for the configured URLs.
func (c *Clients) newClient(rt http.RoundTripper) (*github.Client, error) {
	client := github.NewClient(&http.Client{Transport: rt})
	client.UserAgent = c.userAgent
	if !c.urls.Enterprise {
		return client, nil
	}
	client, err := client.WithEnterpriseURLs(c.urls.API, c.urls.Uploads)
	if err != nil {
		return nil, fmt.Errorf("github: enterprise URLs %s, %s: %w", c.urls.API, c.urls.Uploads, err)
	}
	return client, nil
}

// mustClient is newClient for callers without an error result. NewClients
// has already checked that newClient succeeds for these URLs; should it fail
// anyway, the returned client's calls fail with the error.
func (c *Clients) mustClient(rt http.RoundTripper) *github.Client {
	client, err := c.newClient(rt)
	if err != nil {
		c.log.WithError(err).Error("build GitHub client")
		return github.NewClient(&http.Client{Transport: errTransport{err}})
	}
	return client
}
