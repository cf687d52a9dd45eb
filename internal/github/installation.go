package github

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
)

// installation holds one installation's ghinstallation transport, which
// mints, caches and refreshes (a minute before expiry) its access token.
//
// Every call into the ghinstallation transport goes through mu:
// ghinstallation v2.19.0's Expiry() reads the token without the lock its
// Token() refreshes it under, so calling them from different goroutines is a
// data race. Holding mu across Token()+Expiry() also keeps the pair
// consistent. This is why API requests do not go through the ghinstallation
// transport's own RoundTrip (which calls Token() unguarded) but through
// installationAuth below.
type installation struct {
	id     int64
	mu     sync.Mutex
	itr    *ghinstallation.Transport
	budget budgetWatch // budget.go
}

// token returns the current access token and its expiry, refreshing it if it
// expires within a minute.
func (in *installation) token(ctx context.Context) (string, time.Time, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	tok, err := in.itr.Token(ctx)
	if err != nil {
		return "", time.Time{}, closeTokenError(in.id, err)
	}
	expiresAt, _, err := in.itr.Expiry()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("github: installation %d token expiry: %w", in.id, err)
	}
	return tok, expiresAt, nil
}

// installationAuth authenticates requests as an installation:
// "Authorization: token <installation token>".
type installationAuth struct {
	inst *installation
	next http.RoundTripper
}

func (a installationAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, _, err := a.inst.token(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	req = req.Clone(req.Context()) // a RoundTripper must not modify its request
	req.Header.Set("Authorization", "token "+tok)
	resp, err := a.next.RoundTrip(req)
	if err == nil {
		a.inst.budget.observe(resp)
	}
	return resp, err
}
