package github

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"
	jwt "github.com/golang-jwt/jwt/v4"
)

// ErrNoAppCredentials is returned for app and installation calls when the
// Clients were built without GitHub App credentials.
var ErrNoAppCredentials = errors.New("github: no GitHub App credentials configured")

// AppCredentials identify a GitHub App: its numeric ID and the PEM-encoded
// RSA private key downloaded from the app's settings page.
type AppCredentials struct {
	AppID         int64
	PrivateKeyPEM []byte
}

// parse validates the credentials and decodes the key.
func (c AppCredentials) parse() (*rsa.PrivateKey, error) {
	if c.AppID <= 0 {
		return nil, fmt.Errorf("github: app ID must be positive, got %d", c.AppID)
	}
	if len(c.PrivateKeyPEM) == 0 {
		return nil, fmt.Errorf("github: app %d: empty private key", c.AppID)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(c.PrivateKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("github: app %d: parse private key: %w", c.AppID, err)
	}
	return key, nil
}

// closeTokenError closes the response an *ghinstallation.HTTPError carries
// and returns err wrapped with the installation and GitHub's message.
func closeTokenError(installationID int64, err error) error {
	var he *ghinstallation.HTTPError
	if !errors.As(err, &he) || he.Response == nil || he.Response.Body == nil {
		return fmt.Errorf("github: installation %d token: %w", installationID, err)
	}
	body, _ := io.ReadAll(io.LimitReader(he.Response.Body, 4<<10))
	_ = he.Response.Body.Close()
	he.Response.Body = http.NoBody
	msg := errorMessage(body)
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		return fmt.Errorf("github: installation %d token: %w", installationID, err)
	}
	return fmt.Errorf("github: installation %d token: %w (GitHub says: %s)", installationID, err, msg)
}

// errTransport fails every request with err.
type errTransport struct{ err error }

func (t errTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, t.err
}
