package setup

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	ghurls "github.com/porchbot/porchbot/internal/github"
)

// Options configure one run of the manifest flow.
type Options struct {
	// GitHubURL is the configured GitHub base URL (empty: github.com).
	GitHubURL string
	// WebhookURL, when set, replaces app.yaml's webhook URL.
	WebhookURL string
	// Org, when set, creates the App owned by this organization.
	Org string
	// CatalogURL, when set, is where the web catalog will be served: the
	// App's user authorization sends the browser back to its sign-in.
	CatalogURL string
	// HTTPClient makes the conversion call (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Listening is called with the local page's URL once it serves.
	Listening func(pageURL string)
}

// Flow is one manifest flow: the local page and its callback.
type Flow struct {
	urls     ghurls.URLs
	org      string
	state    string
	client   *github.Client
	manifest []byte
	done     chan result
}

type result struct {
	creds Credentials
	err   error
}

// Run serves the local page on 127.0.0.1 (random port) until GitHub
// redirects back and the code is converted, and returns the credentials.
func Run(ctx context.Context, o Options) (Credentials, error) {
	if err := checkForgeApp(ctx, o.GitHubURL); err != nil {
		return Credentials{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Credentials{}, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	base := "http://" + ln.Addr().String()
	f, err := NewFlow(o, base+"/callback")
	if err != nil {
		ln.Close()
		return Credentials{}, err
	}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Shutdown
	defer func() {
		// let the callback finish its answer to the browser
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if o.Listening != nil {
		o.Listening(base + "/")
	}
	select {
	case r := <-f.done:
		return r.creds, r.err
	case <-ctx.Done():
		return Credentials{}, ctx.Err()
	}
}

// NewFlow prepares a flow whose callback is at callbackURL.
func NewFlow(o Options, callbackURL string) (*Flow, error) {
	urls, err := ghurls.ParseBaseURL(o.GitHubURL)
	if err != nil {
		return nil, err
	}
	if o.Org != "" && (len(o.Org) > 39 || strings.ContainsAny(o.Org, "/?#% ")) {
		return nil, fmt.Errorf("organization %q is not a valid login", o.Org)
	}
	if o.WebhookURL != "" {
		if u, err := url.Parse(o.WebhookURL); err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("webhook URL %q: want http(s)://host/path", o.WebhookURL)
		}
	}
	var catalogCallbacks []string
	if o.CatalogURL != "" {
		catalogCallbacks = []string{strings.TrimSuffix(o.CatalogURL, "/") + CatalogCallbackPath}
	}
	m, err := BuildManifest(callbackURL, o.WebhookURL, catalogCallbacks...)
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("random state: %w", err)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	c := github.NewClient(hc)
	if urls.Enterprise {
		if c, err = c.WithEnterpriseURLs(urls.API, urls.Uploads); err != nil {
			return nil, fmt.Errorf("GitHub client: %w", err)
		}
	}
	return &Flow{urls: urls, org: o.Org, state: hex.EncodeToString(nonce[:]), client: c, manifest: m, done: make(chan result, 1)}, nil
}

// NewAppURL is where the form posts the manifest.
func (f *Flow) NewAppURL() string {
	p := "settings/apps/new"
	if f.org != "" {
		p = "organizations/" + url.PathEscape(f.org) + "/settings/apps/new"
	}
	return f.urls.Web + p + "?state=" + url.QueryEscape(f.state)
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><title>porchbot setup</title></head>
<body onload="document.forms[0].submit()">
<p>Create the porchbot GitHub App on {{.Web}}.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the GitHub App</button>
</form></body></html>
`))

// ServeHTTP serves the page (/) and the callback (/callback).
func (f *Flow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, map[string]string{"Web": f.urls.Web, "Action": f.NewAppURL(), "Manifest": string(f.manifest)})
	case "/callback":
		f.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *Flow) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1 {
		http.Error(w, "porchbot setup: the state does not match this setup's; start again", http.StatusBadRequest)
		return
	}
	code := q.Get("code")
	if code == "" || len(code) > 256 {
		http.Error(w, "porchbot setup: missing or oversized code", http.StatusBadRequest)
		return
	}
	creds, err := f.convert(r.Context(), code)
	select {
	case f.done <- result{creds, err}:
	default: // a second callback after the outcome is decided
		http.Error(w, "porchbot setup: already done", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "porchbot setup: "+err.Error(), http.StatusBadGateway)
		return
	}
	fmt.Fprintf(w, "GitHub App %s (id %d) created. You can close this page.\n", creds.Slug, creds.AppID)
}

func (f *Flow) convert(ctx context.Context, code string) (Credentials, error) {
	cfg, _, err := f.client.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		var ge *github.ErrorResponse
		if errors.As(err, &ge) && ge.Response != nil {
			return Credentials{}, fmt.Errorf("convert the manifest code: GitHub answered %d: %s", ge.Response.StatusCode, ge.Message)
		}
		return Credentials{}, fmt.Errorf("convert the manifest code: %w", err)
	}
	return credentialsOf(cfg)
}
