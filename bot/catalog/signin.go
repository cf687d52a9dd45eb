package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// OAuth is the GitHub App's user authorization (the OAuth web flow):
// the browser is sent to AuthorizeURL, comes back to CallbackURL with a
// code, which is traded for a user-to-server token at TokenURL.
type OAuth struct {
	ClientID, ClientSecret string
	// Web is GitHub's web base URL (https://github.com/, or the forge's).
	Web string
	// CallbackURL is the catalog's /login/callback as the browser reaches
	// it (one of the App's callback URLs).
	CallbackURL string
	// HTTP makes the token exchange (default http.DefaultClient).
	HTTP *http.Client
}

// maxTokenAnswer bounds the token exchange's answer.
const maxTokenAnswer = 64 << 10

// defaultUserTokenTTL is a user-to-server token's life when GitHub does not
// say (tokens without expiry): the session still ends then.
const defaultUserTokenTTL = 8 * time.Hour

func (o *OAuth) endpoint(p string) string { return strings.TrimSuffix(o.Web, "/") + p }

// AuthorizeURL is where the browser signs in; state comes back with it.
func (o *OAuth) AuthorizeURL(state string) string {
	q := url.Values{"client_id": {o.ClientID}, "redirect_uri": {o.CallbackURL}, "state": {state}}
	return o.endpoint("/login/oauth/authorize") + "?" + q.Encode()
}

// userToken is the token exchange's answer.
type userToken struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// Exchange trades a code for a user-to-server token and its lifetime.
// Neither the code nor the token goes into an error or a log line.
func (o *OAuth) Exchange(ctx context.Context, code string) (string, time.Duration, error) {
	form := url.Values{"client_id": {o.ClientID}, "client_secret": {o.ClientSecret}, "code": {code}, "redirect_uri": {o.CallbackURL}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint("/login/oauth/access_token"), strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	c := o.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL carries nothing secret, but keep errors short
		}
		return "", 0, fmt.Errorf("token exchange: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenAnswer))
	if err != nil {
		return "", 0, fmt.Errorf("token exchange: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("token exchange: GitHub answered %d", resp.StatusCode)
	}
	var t userToken
	if err := json.Unmarshal(body, &t); err != nil {
		return "", 0, fmt.Errorf("token exchange: unreadable answer: %w", err)
	}
	if t.Error != "" || t.AccessToken == "" {
		return "", 0, fmt.Errorf("token exchange refused: %s (%s)", t.Error, t.Description)
	}
	ttl := time.Duration(t.ExpiresIn) * time.Second
	if ttl <= 0 || ttl > defaultUserTokenTTL {
		ttl = defaultUserTokenTTL
	}
	return t.AccessToken, ttl, nil
}

// UserAPI is GitHub as a signed-in viewer: who they are, and which
// repositories of the App's installations they can read (go-github with
// the user-to-server token).
type UserAPI interface {
	Login(ctx context.Context) (string, error)
	Readable(ctx context.Context) (map[string]bool, error)
}

// UserClients builds a viewer's UserAPI from their token
// (internal/github.Clients.Token).
type UserClients func(ctx context.Context, token string) *github.Client

// api is the viewer's UserAPI.
func (u UserClients) api(ctx context.Context, token string) UserAPI { return userAPI{u(ctx, token)} }

type userAPI struct{ gh *github.Client }

func (u userAPI) Login(ctx context.Context) (string, error) {
	me, _, err := u.gh.Users.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("GET /user: %w", err)
	}
	if me.GetLogin() == "" {
		return "", errors.New("GET /user: no login")
	}
	return me.GetLogin(), nil
}

// Readable lists, installation by installation, the repositories the
// viewer can read (lower-case owner/name), at most maxListedRepos.
func (u userAPI) Readable(ctx context.Context) (map[string]bool, error) {
	var insts []*github.Installation
	err := eachPage(func(opts *github.ListOptions) (*github.Response, error) {
		page, resp, err := u.gh.Apps.ListUserInstallations(ctx, opts)
		insts = append(insts, page...)
		return resp, err
	}, func() bool { return len(insts) < maxListedRepos })
	if err != nil {
		return nil, fmt.Errorf("GET /user/installations: %w", err)
	}
	out := map[string]bool{}
	for _, inst := range insts {
		err := eachPage(func(opts *github.ListOptions) (*github.Response, error) {
			page, resp, err := u.gh.Apps.ListUserRepos(ctx, inst.GetID(), opts)
			for _, r := range repositoriesOf(page) {
				out[strings.ToLower(r.GetFullName())] = true
			}
			return resp, err
		}, func() bool { return len(out) < maxListedRepos })
		if err != nil {
			return nil, fmt.Errorf("GET /user/installations/%d/repositories: %w", inst.GetID(), err)
		}
	}
	return out, nil
}
