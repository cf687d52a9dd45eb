package gitstore

import (
	"context"
	"fmt"

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
