package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
)

// CatalogCallbackPath is the web catalog's sign-in callback (bot/catalog's
// CallbackPath), under the catalog's URL.
const CatalogCallbackPath = "/login/callback"

// Credentials are what the manifest conversion returns that porchbot needs,
// and the settings of the setup that go with them.
type Credentials struct {
	AppID         int64
	Slug          string
	PEM           string
	WebhookSecret string
	// ClientID and ClientSecret sign users in to the web catalog.
	ClientID     string
	ClientSecret string
	// GitHubURL (GHES, the local forge; empty: github.com) and CatalogURL
	// are the setup's own, written with the rest.
	GitHubURL, CatalogURL string
}

// credentialsOf checks a conversion answer for the fields porchbot needs.
func credentialsOf(c *github.AppConfig) (Credentials, error) {
	cr := Credentials{
		AppID: c.GetID(), Slug: c.GetSlug(), PEM: c.GetPEM(), WebhookSecret: c.GetWebhookSecret(),
		ClientID: c.GetClientID(), ClientSecret: c.GetClientSecret(),
	}
	switch {
	case cr.AppID <= 0:
		return cr, errors.New("conversion answer has no App id")
	case !strings.Contains(cr.PEM, "PRIVATE KEY"):
		return cr, errors.New("conversion answer has no PEM private key")
	case cr.WebhookSecret == "":
		return cr, errors.New("conversion answer has no webhook secret")
	}
	return cr, nil
}

// PEMPath is where WriteEnvFile puts the private key of the env file at
// path: beside it, <path without extension>.pem.
func PEMPath(path string) string {
	p := strings.TrimSuffix(path, filepath.Ext(path)) + ".pem"
	if p == path {
		p = path + ".pem"
	}
	return p
}

// CheckFree refuses an env file path whose file or key file exists:
// credentials are never overwritten. Call it before the flow, so that
// nothing GitHub answers once is lost.
func CheckFree(path string) error {
	for _, p := range []string{path, PEMPath(path)} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%s exists: porchbot setup does not overwrite credentials", p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("check %s: %w", p, err)
		}
	}
	return nil
}

// WriteEnvFile writes the credentials as an env file at path (mode 0600) and
// the private key beside it at PEMPath(path) (mode 0600).
func WriteEnvFile(path string, c Credentials) (pemPath string, err error) {
	pemPath = PEMPath(path)
	absPEM, err := filepath.Abs(pemPath)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", pemPath, err)
	}
	if err := writePrivate(pemPath, []byte(c.PEM)); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# GitHub App %s, created by porchbot setup\n", c.Slug)
	fmt.Fprintf(&b, "PORCHBOT_APP_ID=%d\n", c.AppID)
	fmt.Fprintf(&b, "PORCHBOT_PRIVATE_KEY_PATH=%s\n", absPEM)
	fmt.Fprintf(&b, "PORCHBOT_WEBHOOK_SECRET=%s\n", c.WebhookSecret)
	if c.GitHubURL != "" {
		fmt.Fprintf(&b, "PORCHBOT_GITHUB_URL=%s\n", c.GitHubURL)
	}
	if c.ClientID != "" {
		fmt.Fprintf(&b, "# the App's OAuth client: signs users in to the web catalog\n")
		fmt.Fprintf(&b, "PORCHBOT_CLIENT_ID=%s\nPORCHBOT_CLIENT_SECRET=%s\n", c.ClientID, c.ClientSecret)
	}
	if c.CatalogURL != "" {
		fmt.Fprintf(&b, "PORCHBOT_CATALOG=true\nPORCHBOT_CATALOG_URL=%s\n", strings.TrimSuffix(c.CatalogURL, "/"))
	}
	if err := writePrivate(path, []byte(b.String())); err != nil {
		return "", err
	}
	return absPEM, nil
}

// SecretYAML is a Kubernetes Secret holding the keys charts/porchbot reads
// with github.existingSecret.
func SecretYAML(name string, c Credentials) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + strconv.Quote(name) + "\n")
	b.WriteString("  annotations:\n    porchbot.dev/app-id: " + strconv.Quote(strconv.FormatInt(c.AppID, 10)) + "\n")
	b.WriteString("type: Opaque\nstringData:\n  private-key.pem: |\n")
	for _, line := range strings.Split(strings.TrimRight(c.PEM, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	b.WriteString("  webhook-secret: " + strconv.Quote(c.WebhookSecret) + "\n")
	if c.ClientID != "" {
		b.WriteString("  client-id: " + strconv.Quote(c.ClientID) + "\n")
		b.WriteString("  client-secret: " + strconv.Quote(c.ClientSecret) + "\n")
	}
	return b.String()
}

func writePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
