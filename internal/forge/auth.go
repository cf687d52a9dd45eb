package forge

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

type principalKind int

const (
	principalUser principalKind = iota + 1
	principalInstallation
	principalApp
)

// principal is who makes a request: a user (personal token), the App's
// bot acting for an installation (installation token), or the App itself
// (RS256 JWT).
type principal struct {
	kind         principalKind
	account      *Account // the user, or the App's bot user
	installation *Installation
	expires      time.Time
	// viaApp marks a user-to-server token (the App's OAuth web flow): it
	// reaches the user's repositories where the App is installed, and
	// public ones.
	viaApp bool
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p *principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// caller is the authenticated principal of a request, nil when anonymous.
func caller(r *http.Request) *principal {
	p, _ := r.Context().Value(principalKey{}).(*principal)
	return p
}

var errBadCredentials = errors.New("Bad credentials")

// authenticate reads GitHub's credential forms: "token T", "Bearer T"
// (a token or the App's JWT) and HTTP basic with the token as password
// (git). No header means anonymous.
func (f *Forge) authenticate(r *http.Request) (*principal, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, nil
	}
	var tok string
	scheme, rest, _ := strings.Cut(h, " ")
	switch strings.ToLower(scheme) {
	case "token", "bearer":
		tok = strings.TrimSpace(rest)
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil {
			return nil, errBadCredentials
		}
		_, pass, ok := strings.Cut(string(raw), ":")
		if !ok {
			return nil, errBadCredentials
		}
		tok = pass
	default:
		return nil, errBadCredentials
	}
	if strings.Count(tok, ".") == 2 {
		return f.verifyAppJWT(tok)
	}
	f.mu.RLock()
	p, ok := f.tokens[tok]
	f.mu.RUnlock()
	if !ok {
		return nil, errBadCredentials
	}
	if !p.expires.IsZero() && !f.now().Before(p.expires) {
		return nil, errBadCredentials
	}
	return p, nil
}

// verifyAppJWT checks an App JWT as GitHub does: RS256 signed with the
// App's key, iss = App id, not expired, lifetime at most ten minutes.
func (f *Forge) verifyAppJWT(tok string) (*principal, error) {
	app := f.appInfo()
	if app == nil {
		return nil, errBadCredentials
	}
	key, err := parseRSAPublicKey(app.PublicKeyPEM)
	if err != nil {
		return nil, err
	}
	claims := &jwt.RegisteredClaims{}
	parser := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}))
	parsed, err := parser.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return key, nil })
	if err != nil || !parsed.Valid {
		return nil, fmt.Errorf("%w: JWT: %v", errBadCredentials, err)
	}
	if claims.Issuer != strconv.FormatInt(app.ID, 10) {
		return nil, fmt.Errorf("%w: JWT issuer %q is not app %d", errBadCredentials, claims.Issuer, app.ID)
	}
	if claims.ExpiresAt == nil || claims.IssuedAt == nil || claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 11*time.Minute {
		return nil, fmt.Errorf("%w: JWT must carry iat and exp at most 10 minutes apart", errBadCredentials)
	}
	return &principal{kind: principalApp, account: app.Bot}, nil
}

func parseRSAPublicKey(pemBytes []byte) (*rsa.PublicKey, error) {
	return jwt.ParseRSAPublicKeyFromPEM(pemBytes)
}
