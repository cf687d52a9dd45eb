package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"

	ghclient "github.com/porchbot/porchbot/internal/github"
	"github.com/porchbot/porchbot/internal/settings"
)

// credentialsTimeout bounds the start-up check of the App credentials
// (the transport retries 5xx answers within it).
const credentialsTimeout = 30 * time.Second

// checkKey is the first half of the start-up check: the private key parses.
// The error is one line naming how the key was given.
func checkKey(s *settings.Settings) error {
	if _, err := jwt.ParseRSAPrivateKeyFromPEM(s.PrivateKeyPEM); err != nil {
		return fmt.Errorf("the private key from %s is not an RSA private key in PEM form (%v)", s.PrivateKeyFrom, err)
	}
	return nil
}

// checkApp is the second half: one call as the App (GET /app) succeeds
// and answers for the App id given. Its error is one line naming what the
// user gave, so `porchbot serve` refuses to start with it instead of
// failing later at /readyz.
func checkApp(ctx context.Context, s *settings.Settings, c *ghclient.Clients) error {
	ctx, cancel := context.WithTimeout(ctx, credentialsTimeout)
	defer cancel()
	app, _, err := c.App(ctx).Apps.Get(ctx, "")
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%s refused the App's credentials (401 %s): check that the private key from %s is a key of App %d from %s",
			s.GitHubURL, er.Message, s.PrivateKeyFrom, s.AppID, s.AppIDFrom)
	case errors.As(err, &er) && er.Response != nil:
		return fmt.Errorf("checking the App's credentials: %s answered GET /app with %d %s", s.GitHubURL, er.Response.StatusCode, er.Message)
	case err != nil:
		return fmt.Errorf("checking the App's credentials: %w", err)
	case app.GetID() != s.AppID:
		return fmt.Errorf("%s answers for App %d, not App %d from %s", s.GitHubURL, app.GetID(), s.AppID, s.AppIDFrom)
	}
	return nil
}
