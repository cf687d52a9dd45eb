// Package forgetest starts a local forge on loopback for tests, with a
// standard cast: users alice (admin), bob (write), carol (read) and
// mallory (no access), organisation acme (members alice, bob) with team
// platform (alice), repository acme/catalog, and the porchbot App
// registered with a fresh RSA key and installed on acme.
package forgetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
)

// AppID is the App id the environment registers.
const AppID int64 = 4242

// Tokens of the standard users.
const (
	AliceToken   = "alice-token"
	BobToken     = "bob-token"
	CarolToken   = "carol-token"
	MalloryToken = "mallory-token"
)

// Env is a running forge and what a test needs to talk to it.
type Env struct {
	Forge         *forge.Forge
	PrivateKeyPEM []byte
	WebhookSecret []byte
	Installation  *forge.Installation
	CatalogRepo   string // "acme/catalog"
}

// Options tune New.
type Options struct {
	// WebhookURL receives the App's deliveries ("" = none yet; SetWebhook later).
	WebhookURL string
	// Seed replaces the standard cast when set (the App is still registered).
	Seed *forge.Seed
}

// New starts a forge on 127.0.0.1 with the standard cast; it is closed
// when the test ends.
func New(t testing.TB, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	f, err := forge.New(forge.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	secret := []byte("test-webhook-secret")
	if _, err := f.RegisterApp(AppID, "porchbot", pubPEM, o.WebhookURL, secret); err != nil {
		t.Fatal(err)
	}
	seed := o.Seed
	if seed == nil {
		seed = StandardSeed()
	}
	if err := f.Apply(seed); err != nil {
		t.Fatal(err)
	}
	env := &Env{Forge: f, PrivateKeyPEM: privPEM, WebhookSecret: secret, CatalogRepo: "acme/catalog"}
	for _, inst := range seed.App.Installations {
		i, err := f.Install(inst)
		if err != nil {
			t.Fatal(err)
		}
		if env.Installation == nil {
			env.Installation = i
		}
	}
	return env
}

// StandardSeed is the standard cast.
func StandardSeed() *forge.Seed {
	return &forge.Seed{
		Users: []forge.SeedUser{{Login: "alice", Token: AliceToken}, {Login: "bob", Token: BobToken},
			{Login: "carol", Token: CarolToken}, {Login: "mallory", Token: MalloryToken}},
		Orgs: []forge.SeedOrg{{Login: "acme", Members: []string{"alice", "bob"},
			Teams: []forge.SeedTeam{{Slug: "platform", Members: []string{"alice"}}}}},
		Repositories: []forge.SeedRepo{{Name: "acme/catalog", DefaultBranch: "main", Private: true,
			Collaborators: map[string]string{"alice": "admin", "bob": "write", "carol": "read"}}},
		App: forge.SeedApp{Installations: []string{"acme"}},
	}
}

// Client is a go-github client authenticated with a personal token.
func (e *Env) Client(token string) *github.Client {
	c, err := github.NewClient(&http.Client{Timeout: 30 * time.Second}).
		WithAuthToken(token).WithEnterpriseURLs(e.Forge.APIURL(), e.Forge.BaseURL()+"/api/uploads/")
	if err != nil {
		panic(err)
	}
	return c
}

// GitURL is the clone URL of a repository.
func (e *Env) GitURL(fullName string) string { return e.Forge.BaseURL() + "/" + fullName + ".git" }

// InstallationToken issues a token of the App's installation on acme.
func (e *Env) InstallationToken(t testing.TB) string {
	t.Helper()
	tok, _, err := e.Forge.InstallationToken(e.Installation.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// WaitDeliveries waits (bounded) for every webhook emitted so far.
func (e *Env) WaitDeliveries(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Forge.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
}
