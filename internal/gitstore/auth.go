package gitstore

import (
	"context"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// TokenUser is the HTTP basic user name GitHub expects with an installation
// access token as password.
const TokenUser = "x-access-token"

// TokenAuth returns the credentials for an installation access token.
func TokenAuth(token string) transport.AuthMethod {
	return &githttp.BasicAuth{Username: TokenUser, Password: token}
}

// InstallationTokens gives the App installation tokens that cover
// repositories (internal/github.Clients).
type InstallationTokens interface {
	InstallationIDForRepo(ctx context.Context, fullName string) (int64, error)
	InstallationToken(ctx context.Context, installationID int64) (string, time.Time, error)
}

// InstallationAuth is an Options.Auth that authenticates to a repository
// with a token of the App installation covering it.
func InstallationAuth(c InstallationTokens) func(ctx context.Context, repo string) (transport.AuthMethod, error) {
	return func(ctx context.Context, repo string) (transport.AuthMethod, error) {
		id, err := c.InstallationIDForRepo(ctx, repo)
		if err != nil {
			return nil, err
		}
		tok, _, err := c.InstallationToken(ctx, id)
		if err != nil {
			return nil, err
		}
		return TokenAuth(tok), nil
	}
}

// auth returns the credentials for a repository.
func (s *Store) auth(ctx context.Context, loc location) (transport.AuthMethod, error) {
	if s.opts.Auth == nil {
		return nil, nil
	}
	a, err := s.opts.Auth(ctx, loc.name)
	if err != nil {
		return nil, fmt.Errorf("gitstore: credentials for %s: %w", loc.name, err)
	}
	return a, nil
}
