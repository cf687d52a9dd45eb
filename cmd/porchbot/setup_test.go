package main

import (
	"bytes"
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	botcatalog "github.com/porchbot/porchbot/bot/catalog"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/setup"
)

// pageURLWriter is setup's stderr: it hands over the local page's URL once
// printed.
type pageURLWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	url chan string
}

var pageURLRE = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)

func (w *pageURLWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if u := pageURLRE.FindString(string(p)); u != "" {
		w.url <- u
	}
	return len(p), nil
}

var (
	formActionRE   = regexp.MustCompile(`action="([^"]+)"`)
	formManifestRE = regexp.MustCompile(`name="manifest" value="([^"]+)"`)
)

// browse plays the browser: GET the page, submit its form to the forge,
// follow the redirect back to /callback. It returns the callback's answer
// and the code the forge sent back.
func browse(t *testing.T, page string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	action, manifest := formActionRE.FindSubmatch(body), formManifestRE.FindSubmatch(body)
	if action == nil || manifest == nil {
		t.Fatalf("no manifest form on the page:\n%s", body)
	}
	var code string
	browser := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		code = req.URL.Query().Get("code")
		return nil
	}}
	resp, err = browser.PostForm(html.UnescapeString(string(action[1])), url.Values{"manifest": {html.UnescapeString(string(manifest[1]))}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), code
}

// runSetupAsync runs porchbot setup and returns its page URL and outcome.
func runSetupAsync(t *testing.T, ctx context.Context, args ...string) (string, *bytes.Buffer, <-chan error) {
	t.Helper()
	stderr := &pageURLWriter{url: make(chan string, 1)}
	stdout := &bytes.Buffer{}
	done := make(chan error, 1)
	go func() { done <- runSetup(ctx, args, stdout, stderr) }()
	select {
	case u := <-stderr.url:
		return u, stdout, done
	case err := <-done:
		t.Fatalf("setup ended before serving: %v; stderr:\n%s", err, stderr.buf.String())
	}
	return "", nil, nil
}

// appGetsItself checks the credentials: the App's JWT gets GET /app 200.
func appGetsItself(t *testing.T, env *forgetest.Env, id int64, pemBytes []byte) {
	t.Helper()
	tr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, id, pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	tr.BaseURL = env.Forge.BaseURL() + "/api/v3"
	c, err := github.NewClient(&http.Client{Transport: tr}).WithEnterpriseURLs(env.Forge.BaseURL()+"/api/v3/", env.Forge.BaseURL()+"/api/uploads/")
	if err != nil {
		t.Fatal(err)
	}
	app, resp, err := c.Apps.Get(context.Background(), "")
	if err != nil || resp.StatusCode != http.StatusOK || app.GetID() != id {
		t.Fatalf("GET /app with the written key: %v %v %+v", err, resp, app)
	}
}

func TestSetupWritesEnvFileThatWorks(t *testing.T) {
	env := forgetest.New(t)
	out := filepath.Join(t.TempDir(), "porchbot.env")
	page, stdout, done := runSetupAsync(t, context.Background(), "--github-url", env.Forge.BaseURL(), "--webhook-url", "https://bot.example.org/api/github/hook", "--out", out)
	status, body, code := browse(t, page)
	if status != http.StatusOK {
		t.Fatalf("callback answered %d: %s", status, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	vars := readEnvFile(t, out)
	id, err := strconv.ParseInt(vars["PORCHBOT_APP_ID"], 10, 64)
	if err != nil || id != forgetest.AppID || vars["PORCHBOT_WEBHOOK_SECRET"] == "" {
		t.Fatalf("env file: %v", vars)
	}
	pemPath := vars["PORCHBOT_PRIVATE_KEY_PATH"]
	for _, p := range []string{out, pemPath} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v mode %v", p, err, st)
		}
	}
	pemBytes, err := os.ReadFile(pemPath)
	if err != nil {
		t.Fatal(err)
	}
	appGetsItself(t, env, id, pemBytes)
	if !strings.Contains(stdout.String(), out) {
		t.Errorf("stdout = %q", stdout)
	}
	// the code was single-use: converting it again is 404
	c, err := github.NewClient(nil).WithEnterpriseURLs(env.Forge.BaseURL()+"/api/v3/", env.Forge.BaseURL()+"/api/uploads/")
	if err != nil {
		t.Fatal(err)
	}
	if _, resp, err := c.Apps.CompleteAppManifest(context.Background(), code); code == "" || err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("second conversion of %q: %v %v", code, resp, err)
	}
}

func TestSetupPrintsKubernetesSecret(t *testing.T) {
	env := forgetest.New(t)
	if _, err := env.Forge.AddOrg("setuporg"); err != nil {
		t.Fatal(err)
	}
	page, stdout, done := runSetupAsync(t, context.Background(), "--github-url", env.Forge.BaseURL(), "--org", "setuporg", "--secret", "porchbot-github")
	if status, body, _ := browse(t, page); status != http.StatusOK {
		t.Fatalf("callback answered %d: %s", status, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	y := stdout.String()
	for _, want := range []string{"kind: Secret", `name: "porchbot-github"`, "private-key.pem: |", "webhook-secret: "} {
		if !strings.Contains(y, want) {
			t.Fatalf("Secret lacks %q:\n%s", want, y)
		}
	}
	var secret struct {
		StringData map[string]string `yaml:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(y), &secret); err != nil {
		t.Fatal(err)
	}
	key := secret.StringData["private-key.pem"]
	if secret.StringData["webhook-secret"] == "" {
		t.Fatalf("no webhook secret:\n%s", y)
	}
	appGetsItself(t, env, forgetest.AppID, []byte(key))
}

func TestSetupRefusesWrongState(t *testing.T) {
	env := forgetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	page, _, done := runSetupAsync(t, ctx, "--github-url", env.Forge.BaseURL(), "--out", filepath.Join(t.TempDir(), "x.env"))
	resp, err := http.Get(page + "callback?code=abc&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("wrong state answered %d, want 400", resp.StatusCode)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("setup succeeded after a forged callback only")
	}
}

func TestSetupReportsConversionError(t *testing.T) {
	env := forgetest.New(t)
	page, _, done := runSetupAsync(t, context.Background(), "--github-url", env.Forge.BaseURL(), "--out", filepath.Join(t.TempDir(), "x.env"))
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	action := html.UnescapeString(string(formActionRE.FindSubmatch(body)[1]))
	u, _ := url.Parse(action)
	// a code the forge never issued, with the right state
	resp, err = http.Get(page + "callback?code=unknown&state=" + u.Query().Get("state"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("unknown code answered %d", resp.StatusCode)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("setup error = %v, want the conversion's 404", err)
	}
}

// Existing credentials are never overwritten: setup refuses before the flow.
func TestSetupRefusesExistingOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "porchbot.env")
	if err := os.WriteFile(filepath.Join(dir, "porchbot.pem"), []byte("old key"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := runSetup(context.Background(), []string{"--out", out}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "porchbot.pem exists") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "porchbot.pem")); string(b) != "old key" {
		t.Fatalf("key file changed: %q", b)
	}
}

// With --catalog-url the App's user authorization comes back to the
// catalog's sign-in, and the env file has what serve needs to run the
// catalog (the client id and secret, the URLs).
func TestSetupForTheCatalog(t *testing.T) {
	if setup.CatalogCallbackPath != botcatalog.CallbackPath {
		t.Fatalf("setup's callback %q is not the catalog's %q", setup.CatalogCallbackPath, botcatalog.CallbackPath)
	}
	env := forgetest.New(t)
	out := filepath.Join(t.TempDir(), "porchbot.env")
	page, _, done := runSetupAsync(t, context.Background(), "--github-url", env.Forge.BaseURL(),
		"--catalog-url", "https://catalog.example.org/", "--out", out)
	if status, body, _ := browse(t, page); status != http.StatusOK {
		t.Fatalf("callback answered %d: %s", status, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	vars := readEnvFile(t, out)
	for k, want := range map[string]string{"PORCHBOT_GITHUB_URL": env.Forge.BaseURL(), "PORCHBOT_CATALOG": "true",
		"PORCHBOT_CATALOG_URL": "https://catalog.example.org"} {
		if vars[k] != want {
			t.Errorf("%s=%q, want %q", k, vars[k], want)
		}
	}
	if vars["PORCHBOT_CLIENT_ID"] == "" || vars["PORCHBOT_CLIENT_SECRET"] == "" {
		t.Fatalf("no OAuth client in the env file: %v", vars)
	}
	authorize := func(redirect string) int {
		q := url.Values{"client_id": {vars["PORCHBOT_CLIENT_ID"]}, "redirect_uri": {redirect}, "state": {"s"}}
		resp, err := http.Get(env.Forge.BaseURL() + "/login/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := authorize("https://catalog.example.org" + setup.CatalogCallbackPath); got != http.StatusOK {
		t.Errorf("sign-in back to the catalog: %d, want 200 (the form)", got)
	}
	if got := authorize("https://elsewhere.example.org" + setup.CatalogCallbackPath); got != http.StatusBadRequest {
		t.Errorf("sign-in back elsewhere: %d, want 400", got)
	}
}

// TestSetupNextSteps: once the App exists, setup says how to make its
// checks required, with the App's id and the GitHub it was made on.
func TestSetupNextSteps(t *testing.T) {
	got := setupNextSteps(setup.Credentials{AppID: 42, Slug: "porchbot"})
	if !strings.Contains(got, "porchbot protect --repo OWNER/NAME --app-id 42\n") || strings.Contains(got, "--github-url") {
		t.Fatalf("github.com:\n%s", got)
	}
	got = setupNextSteps(setup.Credentials{AppID: 7, GitHubURL: "https://ghe.example.com"})
	if !strings.Contains(got, "--app-id 7 --github-url https://ghe.example.com\n") {
		t.Fatalf("GHES:\n%s", got)
	}
}
