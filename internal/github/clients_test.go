package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	jwt "github.com/golang-jwt/jwt/v4"
)

const testAppID = 4242

var (
	testKeyOnce sync.Once
	testKey     *rsa.PrivateKey
	testKeyPEM  []byte
)

func appKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	testKeyOnce.Do(func() {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		testKey = key
		testKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	})
	return testKey, testKeyPEM
}

// fakeApp is a GitHub (GHES layout) that mints installation tokens for
// requests bearing a valid app JWT and serves a repository to requests
// bearing a token it minted.
type fakeApp struct {
	t   *testing.T
	srv *httptest.Server
	pub *rsa.PublicKey

	mu            sync.Mutex
	ttl           time.Duration // lifetime of minted tokens
	tokenStatus   int           // if set, token requests fail with it
	failNextToken []int         // statuses answered to the next token requests
	tokenRequests map[int64]int
	minted        map[string]int64 // token → installation
	apiAuth       []string         // Authorization of each API call
	apiPaths      []string
}

func newFakeApp(t *testing.T, ttl time.Duration) *fakeApp {
	key, _ := appKey(t)
	f := &fakeApp{t: t, pub: &key.PublicKey, ttl: ttl, tokenRequests: map[int64]int{}, minted: map[string]int64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/app/installations/{id}/access_tokens", f.accessTokens)
	mux.HandleFunc("GET /api/v3/app", f.app)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}", f.repo)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/installation", f.repoInstallation)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// verifyJWT checks an "Authorization: Bearer <jwt>" header: RS256, signed by
// the app key, issued by the app.
func (f *fakeApp) verifyJWT(r *http.Request) error {
	auth := r.Header.Get("Authorization")
	raw, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return fmt.Errorf("authorization %q is not a bearer JWT", auth)
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(tok *jwt.Token) (any, error) {
		if tok.Method != jwt.SigningMethodRS256 {
			return nil, fmt.Errorf("alg %v, want RS256", tok.Header["alg"])
		}
		return f.pub, nil
	})
	if err != nil {
		return fmt.Errorf("verify JWT: %w", err)
	}
	if claims.Issuer != strconv.Itoa(testAppID) {
		return fmt.Errorf("iss = %q, want %d", claims.Issuer, testAppID)
	}
	if claims.IssuedAt == nil || claims.ExpiresAt == nil || claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute {
		return fmt.Errorf("iat/exp = %v/%v, want both, at most 10 minutes apart", claims.IssuedAt, claims.ExpiresAt)
	}
	return nil
}

func (f *fakeApp) accessTokens(w http.ResponseWriter, r *http.Request) {
	if err := f.verifyJWT(r); err != nil {
		f.t.Errorf("access_tokens: %v", err)
		http.Error(w, `{"message":"A JSON web token could not be decoded"}`, http.StatusUnauthorized)
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokenRequests[id]++
	if len(f.failNextToken) > 0 {
		code := f.failNextToken[0]
		f.failNextToken = f.failNextToken[1:]
		w.WriteHeader(code)
		return
	}
	if f.tokenStatus != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.tokenStatus)
		fmt.Fprint(w, `{"message":"Integration not installed"}`)
		return
	}
	token := fmt.Sprintf("ghs_inst%d_n%d", id, f.tokenRequests[id])
	f.minted[token] = id
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token":       token,
		"expires_at":  time.Now().Add(f.ttl).UTC().Format(time.RFC3339),
		"permissions": map[string]string{"contents": "write"},
	})
}

func (f *fakeApp) app(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if err := f.verifyJWT(r); err != nil {
		f.t.Errorf("GET /app: %v", err)
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": testAppID, "slug": "porchbot"})
}

func (f *fakeApp) repo(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	auth := r.Header.Get("Authorization")
	f.mu.Lock()
	_, known := f.minted[strings.TrimPrefix(auth, "token ")]
	f.mu.Unlock()
	if !strings.HasPrefix(auth, "token ") || !known {
		if auth != "Bearer pat-123" {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": 1, "name": r.PathValue("repo"), "full_name": r.PathValue("owner") + "/" + r.PathValue("repo")})
}

func (f *fakeApp) repoInstallation(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	if err := f.verifyJWT(r); err != nil {
		f.t.Errorf("GET installation: %v", err)
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	if r.PathValue("owner") != "acme" {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"id": 42, "app_id": testAppID})
}

func (f *fakeApp) record(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apiAuth = append(f.apiAuth, r.Header.Get("Authorization"))
	f.apiPaths = append(f.apiPaths, r.URL.Path)
}

func (f *fakeApp) TokenRequests(id int64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenRequests[id]
}

func (f *fakeApp) APICalls() (auth, paths []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.apiAuth...), append([]string(nil), f.apiPaths...)
}

func (f *fakeApp) clients(t *testing.T, opts TransportOptions) *Clients {
	t.Helper()
	_, pemKey := appKey(t)
	tr, _ := testTransport(opts)
	c, err := NewClients(ClientsOptions{
		BaseURL:   f.srv.URL, // GHES layout, given without /api/v3
		App:       &AppCredentials{AppID: testAppID, PrivateKeyPEM: pemKey},
		Transport: tr,
		Logger:    quietLogger(),
	})
	if err != nil {
		t.Fatalf("NewClients: %v", err)
	}
	return c
}

// testClients builds Clients without app credentials over tr.
func testClients(t *testing.T, baseURL string, tr http.RoundTripper) *Clients {
	t.Helper()
	c, err := NewClients(ClientsOptions{BaseURL: baseURL, Transport: tr, Logger: quietLogger()})
	if err != nil {
		t.Fatalf("NewClients: %v", err)
	}
	return c
}

func TestInstallationTokenCached(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	c := f.clients(t, TransportOptions{})
	ctx := context.Background()

	for range 2 {
		gh, err := c.Installation(ctx, 42)
		if err != nil {
			t.Fatalf("Installation: %v", err)
		}
		for range 2 {
			repo, _, err := gh.Repositories.Get(ctx, "acme", "widgets")
			if err != nil {
				t.Fatalf("Repositories.Get: %v", err)
			}
			if repo.GetFullName() != "acme/widgets" {
				t.Errorf("repo = %q", repo.GetFullName())
			}
		}
	}
	if got := f.TokenRequests(42); got != 1 {
		t.Errorf("token requests = %d, want 1 for four API calls", got)
	}
	auth, paths := f.APICalls()
	for i := range auth {
		if auth[i] != "token ghs_inst42_n1" {
			t.Errorf("call %d Authorization = %q, want token ghs_inst42_n1", i, auth[i])
		}
		if paths[i] != "/api/v3/repos/acme/widgets" {
			t.Errorf("call %d path = %q, want /api/v3/repos/acme/widgets", i, paths[i])
		}
	}

	token, expiresAt, err := c.InstallationToken(ctx, 42)
	if err != nil {
		t.Fatalf("InstallationToken: %v", err)
	}
	if token != "ghs_inst42_n1" {
		t.Errorf("InstallationToken = %q, want the cached ghs_inst42_n1", token)
	}
	if d := time.Until(expiresAt); d < 50*time.Minute || d > time.Hour {
		t.Errorf("expiresAt in %v, want about an hour", d)
	}
	if got := f.TokenRequests(42); got != 1 {
		t.Errorf("token requests = %d after InstallationToken, want still 1", got)
	}

	// Another installation has its own token.
	if tok, _, err := c.InstallationToken(ctx, 7); err != nil || tok != "ghs_inst7_n1" {
		t.Errorf("InstallationToken(7) = %q, %v", tok, err)
	}
}

func TestInstallationTokenRefreshedNearExpiry(t *testing.T) {
	// ghinstallation refreshes a token less than a minute from expiry; a
	// token that lives 30s is therefore refreshed on every use.
	f := newFakeApp(t, 30*time.Second)
	c := f.clients(t, TransportOptions{})
	ctx := context.Background()

	gh, err := c.Installation(ctx, 42)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := gh.Repositories.Get(ctx, "acme", "widgets"); err != nil {
			t.Fatalf("Repositories.Get: %v", err)
		}
	}
	if got := f.TokenRequests(42); got != 2 {
		t.Errorf("token requests = %d, want 2 (refreshed before expiry)", got)
	}
	auth, _ := f.APICalls()
	if len(auth) != 2 || auth[0] != "token ghs_inst42_n1" || auth[1] != "token ghs_inst42_n2" {
		t.Errorf("Authorization headers = %q, want the first then the refreshed token", auth)
	}
	tok, _, err := c.InstallationToken(ctx, 42)
	if err != nil || tok != "ghs_inst42_n3" {
		t.Errorf("InstallationToken = %q, %v; want a fresh ghs_inst42_n3", tok, err)
	}
}

func TestInstallationTokensConcurrent(t *testing.T) {
	f := newFakeApp(t, 30*time.Second) // refresh on every call: maximum contention
	c := f.clients(t, TransportOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 16 {
		id := int64(1 + i%4)
		wg.Go(func() {
			gh, err := c.Installation(ctx, id)
			if err != nil {
				t.Error(err)
				return
			}
			if _, _, err := gh.Repositories.Get(ctx, "acme", "widgets"); err != nil {
				t.Error(err)
			}
			if _, _, err := c.InstallationToken(ctx, id); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestInstallationTokenRetriedThroughTransport(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	f.failNextToken = []int{502, 503}
	c := f.clients(t, TransportOptions{})

	tok, _, err := c.InstallationToken(context.Background(), 42)
	if err != nil {
		t.Fatalf("InstallationToken: %v", err)
	}
	if tok == "" || f.TokenRequests(42) != 3 {
		t.Errorf("token %q after %d requests, want a token after 3", tok, f.TokenRequests(42))
	}
}

func TestInstallationTokenError(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	f.tokenStatus = http.StatusNotFound
	c := f.clients(t, TransportOptions{})
	ctx := context.Background()

	_, _, err := c.InstallationToken(ctx, 42)
	var he *ghinstallation.HTTPError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "Integration not installed") || !strings.Contains(err.Error(), "installation 42") {
		t.Errorf("InstallationToken error = %v, want an HTTPError naming the installation and GitHub's message", err)
	}

	gh, err := c.Installation(ctx, 42)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Repositories.Get(ctx, "acme", "widgets")
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "Integration not installed") {
		t.Errorf("API error = %v, want the token error", err)
	}
}

func TestAppClientUsesJWT(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	c := f.clients(t, TransportOptions{})

	app, _, err := c.App(context.Background()).Apps.Get(context.Background(), "")
	if err != nil {
		t.Fatalf("Apps.Get: %v", err)
	}
	if app.GetID() != testAppID {
		t.Errorf("app ID = %d", app.GetID())
	}
	auth, paths := f.APICalls()
	if len(auth) != 1 || !strings.HasPrefix(auth[0], "Bearer ") || paths[0] != "/api/v3/app" {
		t.Errorf("App call = %q %q, want Bearer JWT on /api/v3/app", auth, paths)
	}
	if got := f.TokenRequests(42); got != 0 {
		t.Errorf("token requests = %d, want none for app calls", got)
	}
}

func TestTokenClient(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	c := f.clients(t, TransportOptions{})

	if _, _, err := c.Token(context.Background(), "pat-123").Repositories.Get(context.Background(), "acme", "widgets"); err != nil {
		t.Fatalf("Repositories.Get: %v", err)
	}
	auth, paths := f.APICalls()
	if len(auth) != 1 || auth[0] != "Bearer pat-123" || paths[0] != "/api/v3/repos/acme/widgets" {
		t.Errorf("Token call = %q %q", auth, paths)
	}
}

func TestNoAppCredentials(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	tr, _ := testTransport(TransportOptions{})
	c := testClients(t, f.srv.URL+"/api/v3/", tr)
	ctx := context.Background()

	if c.HasApp() {
		t.Error("HasApp = true without credentials")
	}
	if _, err := c.Installation(ctx, 1); !errors.Is(err, ErrNoAppCredentials) {
		t.Errorf("Installation error = %v, want ErrNoAppCredentials", err)
	}
	if _, _, err := c.InstallationToken(ctx, 1); !errors.Is(err, ErrNoAppCredentials) {
		t.Errorf("InstallationToken error = %v, want ErrNoAppCredentials", err)
	}
	if _, _, err := c.App(ctx).Apps.Get(ctx, ""); !errors.Is(err, ErrNoAppCredentials) {
		t.Errorf("App call error = %v, want ErrNoAppCredentials", err)
	}
	if auth, _ := f.APICalls(); len(auth) != 0 {
		t.Errorf("calls reached the server: %q", auth)
	}
}

func TestNewClientsValidation(t *testing.T) {
	_, pemKey := appKey(t)
	for name, opts := range map[string]ClientsOptions{
		"bad URL":    {BaseURL: "ftp://x"},
		"bad key":    {App: &AppCredentials{AppID: 1, PrivateKeyPEM: []byte("not a key")}},
		"no key":     {App: &AppCredentials{AppID: 1}},
		"bad app ID": {App: &AppCredentials{AppID: 0, PrivateKeyPEM: pemKey}},
	} {
		if _, err := NewClients(opts); err == nil {
			t.Errorf("%s: NewClients succeeded, want an error", name)
		}
	}
	c, err := NewClients(ClientsOptions{App: &AppCredentials{AppID: 1, PrivateKeyPEM: pemKey}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Installation(context.Background(), 0); err == nil {
		t.Error("Installation(0) succeeded, want an error")
	}
}

func TestClientBaseURLs(t *testing.T) {
	ctx := context.Background()
	c, err := NewClients(ClientsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gh := c.Token(ctx, "x")
	if gh.BaseURL.String() != "https://api.github.com/" || gh.UploadURL.String() != "https://uploads.github.com/" {
		t.Errorf("github.com client URLs = %s, %s", gh.BaseURL, gh.UploadURL)
	}
	if gh.UserAgent != DefaultUserAgent {
		t.Errorf("UserAgent = %q", gh.UserAgent)
	}

	c, err = NewClients(ClientsOptions{BaseURL: "https://ghe.example.com/api/v3"})
	if err != nil {
		t.Fatal(err)
	}
	gh = c.Token(ctx, "x")
	if gh.BaseURL.String() != "https://ghe.example.com/api/v3/" || gh.UploadURL.String() != "https://ghe.example.com/api/uploads/" {
		t.Errorf("GHES client URLs = %s, %s", gh.BaseURL, gh.UploadURL)
	}
}

func TestInstallationIDForRepo(t *testing.T) {
	f := newFakeApp(t, time.Hour)
	c := f.clients(t, TransportOptions{})
	ctx := context.Background()

	for _, name := range []string{"acme/widgets", "ACME/Widgets"} {
		id, err := c.InstallationIDForRepo(ctx, name)
		if err != nil || id != 42 {
			t.Fatalf("InstallationIDForRepo(%q) = %d, %v; want 42", name, id, err)
		}
	}
	if auth, paths := f.APICalls(); len(paths) != 1 || paths[0] != "/api/v3/repos/acme/widgets/installation" || !strings.HasPrefix(auth[0], "Bearer ") {
		t.Errorf("calls = %q %q, want one app-authenticated lookup (then cached)", auth, paths)
	}
	c.ForgetInstallation(42)
	if _, err := c.InstallationIDForRepo(ctx, "acme/widgets"); err != nil {
		t.Fatal(err)
	}
	if _, paths := f.APICalls(); len(paths) != 2 {
		t.Errorf("lookups after ForgetInstallation = %d, want 2", len(paths))
	}

	if _, err := c.InstallationIDForRepo(ctx, "other/repo"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("uninstalled repo error = %v, want a 404", err)
	}
	for _, bad := range []string{"", "acme", "/x", "acme/", "a/b/c"} {
		if _, err := c.InstallationIDForRepo(ctx, bad); err == nil {
			t.Errorf("InstallationIDForRepo(%q) succeeded", bad)
		}
	}
}
