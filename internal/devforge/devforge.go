// Package devforge runs the local forge inside `porchbot serve` when no
// GitHub App credentials are given: it starts the forge on loopback,
// registers porchbot as the forge's App (a fresh key; the webhook secret
// given, or a fresh one),
// seeds an example organisation and tells the user what to clone and push.
package devforge

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/setup"
)

// AppID is the App id porchbot registers on its embedded forge.
const AppID int64 = 1

// DefaultSeedPath is used when no seed is given and it exists (make run
// starts from the repository root).
const DefaultSeedPath = "testdata/forge/seed.yaml"

// Options configure the embedded forge.
type Options struct {
	Listen   string // forge address, e.g. 127.0.0.1:3000
	Dir      string // where its repositories live (wiped at start)
	SeedPath string // "" = DefaultSeedPath if present, else BuiltinSeed
	// SeedFrom names how SeedPath was given (--forge-seed or
	// PORCHBOT_FORGE_SEED), for its errors.
	SeedFrom   string
	WebhookURL string // the bot's hook URL
	// WebhookSecret is the secret the forge signs webhooks with: the one
	// the user gave (PORCHBOT_WEBHOOK_SECRET), or a fresh one when empty.
	WebhookSecret []byte
	Logger        logrus.FieldLogger
}

// Embedded is a running embedded forge and the App credentials porchbot
// uses against it.
type Embedded struct {
	Forge         *forge.Forge
	AppID         int64
	PrivateKeyPEM []byte
	WebhookSecret []byte
	Seed          *forge.Seed
}

// Start starts, registers and seeds the forge. Its errors do not say
// "embedded forge": the caller says what it was starting.
func Start(o Options) (*Embedded, error) {
	if err := os.RemoveAll(o.Dir); err != nil {
		return nil, fmt.Errorf("clean %s: %w", o.Dir, err)
	}
	seed, err := loadSeed(o.SeedPath)
	if err != nil && o.SeedPath != "" && o.SeedFrom != "" {
		return nil, fmt.Errorf("%s: %w", o.SeedFrom, err)
	}
	if err != nil {
		return nil, err
	}
	f, err := forge.New(forge.Options{Dir: o.Dir, Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("app key: %w", err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("app key: %w", err)
	}
	secret := o.WebhookSecret
	if len(secret) == 0 {
		secretBytes := make([]byte, 20)
		if _, err := rand.Read(secretBytes); err != nil {
			return nil, fmt.Errorf("webhook secret: %w", err)
		}
		secret = []byte(hex.EncodeToString(secretBytes))
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	if _, err := f.RegisterApp(AppID, "porchbot", pubPEM, o.WebhookURL, secret); err != nil {
		return nil, err
	}
	// The running porchbot holds the App: porchbot setup pointed at this
	// forge is refused instead of replacing its key and secret.
	f.HoldApp("the porchbot serving it in the embedded mode")
	events, err := setup.ManifestEvents()
	if err != nil {
		return nil, err
	}
	f.SetAppEvents(events) // the App hears what app.yaml subscribes it to
	if err := f.Apply(seed); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	if err := f.Start(o.Listen); err != nil {
		return nil, err
	}
	return &Embedded{Forge: f, AppID: AppID, PrivateKeyPEM: privPEM, WebhookSecret: secret, Seed: seed}, nil
}

func loadSeed(path string) (*forge.Seed, error) {
	if path == "" {
		if _, err := os.Stat(DefaultSeedPath); err != nil {
			return BuiltinSeed(), nil
		}
		path = DefaultSeedPath
	}
	return forge.LoadSeed(path)
}

// BuiltinSeed is the example organisation used when no seed file is found:
// the same cast as testdata/forge/seed.yaml, with an empty catalog.
func BuiltinSeed() *forge.Seed {
	return &forge.Seed{
		Users: []forge.SeedUser{{Login: "alice", Token: "alice-token"}, {Login: "bob", Token: "bob-token"},
			{Login: "carol", Token: "carol-token"}},
		Orgs: []forge.SeedOrg{{Login: "acme", Members: []string{"alice", "bob", "carol"},
			Teams: []forge.SeedTeam{{Slug: "platform", Members: []string{"alice", "bob"}}}}},
		Repositories: []forge.SeedRepo{
			{Name: "acme/catalog", DefaultBranch: "main", Collaborators: map[string]string{"alice": "admin", "bob": "write", "carol": "read"}},
			{Name: "acme/edge-1", DefaultBranch: "main", Collaborators: map[string]string{"alice": "admin", "bob": "write"}},
		},
		App: forge.SeedApp{Installations: []string{"acme"}},
	}
}

// WebhookURL turns the bot's listen address into the URL the forge posts
// to: an unspecified host becomes 127.0.0.1.
func WebhookURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen + "/api/github/hook"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/api/github/hook"
}

// PrintWelcome tells the user what runs where and how to try it.
func (e *Embedded) PrintWelcome(w io.Writer, botURL string) {
	base := e.Forge.BaseURL()
	fmt.Fprintf(w, "\nporchbot is running against its embedded local forge (no GitHub App credentials were given).\n\n")
	fmt.Fprintf(w, "  forge (GitHub API):  %s/api/v3/\n", base)
	fmt.Fprintf(w, "  porchbot webhooks:   %s\n", botURL)
	fmt.Fprintf(w, "  forge in a browser:  %s/ (sign in with a user's login and token)\n", base)
	fmt.Fprintf(w, "  forge call counts:   %s/_forge/stats\n\n", base)
	fmt.Fprintf(w, "Users and their tokens (use a token as the password for git, or as `Authorization: token T`):\n")
	for _, u := range e.Seed.Users {
		fmt.Fprintf(w, "  %-8s %s\n", u.Login, u.Token)
	}
	fmt.Fprintf(w, "\nRepositories:\n")
	names := make([]string, 0, len(e.Seed.Repositories))
	for _, r := range e.Seed.Repositories {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	var firstUser, firstToken string
	if len(e.Seed.Users) > 0 {
		firstUser, firstToken = e.Seed.Users[0].Login, e.Seed.Users[0].Token
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %s.git\n", strings.TrimSuffix(base+"/"+n, "/"))
	}
	if len(names) > 0 && firstUser != "" {
		repo := names[0]
		dir := filepath.Base(repo)
		hostPath := strings.TrimPrefix(base, "http://")
		fmt.Fprintf(w, "\nTry it:\n")
		fmt.Fprintf(w, "  git clone http://%s:%s@%s/%s.git && cd %s\n", firstUser, firstToken, hostPath, repo, dir)
		fmt.Fprintf(w, "  git switch -c drafts/<package>/<workspace>   # edit a package, commit, then:\n")
		fmt.Fprintf(w, "  git push -u origin HEAD\n")
		fmt.Fprintf(w, "  then open the pull request, approve and merge on %s/%s (README: Trying it)\n\n", base, repo)
	}
}
