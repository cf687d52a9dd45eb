package forge_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

const oauthCallback = "http://127.0.0.1:9/login/callback"

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// oauthCode signs login in on the forge's authorize page and returns the
// code of the redirect (and the status when there is none).
func oauthCode(t *testing.T, env *forgetest.Env, login, token, state string) (string, int) {
	t.Helper()
	id, _ := env.Forge.AppOAuthClient()
	resp, err := noRedirects.PostForm(env.Forge.BaseURL()+"/login/oauth/authorize", url.Values{"client_id": {id},
		"redirect_uri": {oauthCallback}, "state": {state}, "login": {login}, "token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return "", resp.StatusCode
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), oauthCallback+"?") || loc.Query().Get("state") != state {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	return loc.Query().Get("code"), resp.StatusCode
}

// oauthExchange trades a code for a token; it returns the JSON answer.
func oauthExchange(t *testing.T, env *forgetest.Env, code, secret string) map[string]any {
	t.Helper()
	id, _ := env.Forge.AppOAuthClient()
	req, _ := http.NewRequest(http.MethodPost, env.Forge.BaseURL()+"/login/oauth/access_token", strings.NewReader(url.Values{
		"client_id": {id}, "client_secret": {secret}, "code": {code}, "redirect_uri": {oauthCallback}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func apiStatus(t *testing.T, env *forgetest.Env, token, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, env.Forge.BaseURL()+"/api/v3"+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The App's user authorization: sign in, code, exchange, a token that acts
// as the user where the App is installed; codes are single-use, the client
// secret and the redirect_uri are checked.
func TestOAuthWebFlow(t *testing.T) {
	env := forgetest.New(t)
	env.Forge.SetAppCallbackURLs(oauthCallback)
	if _, err := env.Forge.CreateRepo("alice", "notes", forge.RepoOptions{Private: true}); err != nil {
		t.Fatal(err)
	}
	id, secret := env.Forge.AppOAuthClient()
	base := env.Forge.BaseURL() + "/login/oauth/authorize?"

	for name, q := range map[string]url.Values{
		"unknown client":     {"client_id": {"Iv1.nope"}, "redirect_uri": {oauthCallback}},
		"foreign redirect":   {"client_id": {id}, "redirect_uri": {"http://evil.example/login/callback"}},
		"sibling path":       {"client_id": {id}, "redirect_uri": {"http://127.0.0.1:9/login/callbackx"}},
		"javascript: scheme": {"client_id": {id}, "redirect_uri": {"javascript:alert(1)"}},
	} {
		resp, err := noRedirects.Get(base + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want a refusal", name, resp.StatusCode)
		}
	}
	resp, err := noRedirects.Get(base + url.Values{"client_id": {id}, "redirect_uri": {oauthCallback + "/sub"}, "state": {"s<1>"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `name="token"`) || !strings.Contains(string(page), "s&lt;1&gt;") {
		t.Fatalf("sign-in page: %d\n%s", resp.StatusCode, page)
	}

	if _, status := oauthCode(t, env, "alice", "bob-token", "s1"); status != http.StatusUnauthorized {
		t.Errorf("alice with bob's token: %d, want 401", status)
	}
	code, _ := oauthCode(t, env, "alice", forgetest.AliceToken, "s1")
	if got := oauthExchange(t, env, code, "wrong-secret"); got["error"] != "incorrect_client_credentials" {
		t.Errorf("wrong secret: %v", got)
	}
	got := oauthExchange(t, env, code, secret)
	tok, _ := got["access_token"].(string)
	if !strings.HasPrefix(tok, "ghu_") || got["token_type"] != "bearer" {
		t.Fatalf("exchange: %v", got)
	}
	if again := oauthExchange(t, env, code, secret); again["error"] != "bad_verification_code" {
		t.Errorf("second exchange of one code: %v", again)
	}
	if st, body := apiStatus(t, env, tok, "/user"); st != http.StatusOK || !strings.Contains(body, `"login":"alice"`) {
		t.Errorf("GET /user: %d %s", st, body)
	}
	if st, _ := apiStatus(t, env, tok, "/repos/acme/catalog"); st != http.StatusOK {
		t.Errorf("alice's user token on acme/catalog (installed): %d", st)
	}
	if st, _ := apiStatus(t, env, forgetest.AliceToken, "/repos/alice/notes"); st != http.StatusOK {
		t.Errorf("alice's personal token on alice/notes: %d", st)
	}
	if st, _ := apiStatus(t, env, tok, "/repos/alice/notes"); st != http.StatusNotFound {
		t.Errorf("alice's user token on alice/notes (App not installed): %d, want 404", st)
	}

	mcode, _ := oauthCode(t, env, "mallory", forgetest.MalloryToken, "s2")
	mtok, _ := oauthExchange(t, env, mcode, secret)["access_token"].(string)
	if st, _ := apiStatus(t, env, mtok, "/repos/acme/catalog"); st != http.StatusNotFound {
		t.Errorf("mallory's user token on acme/catalog: %d, want 404", st)
	}
}

// userToken signs login in and returns their user-to-server token.
func userToken(t *testing.T, env *forgetest.Env, login, token string) string {
	t.Helper()
	env.Forge.SetAppCallbackURLs(oauthCallback)
	code, status := oauthCode(t, env, login, token, "s")
	if code == "" {
		t.Fatalf("sign-in of %s: %d", login, status)
	}
	_, secret := env.Forge.AppOAuthClient()
	tok, _ := oauthExchange(t, env, code, secret)["access_token"].(string)
	return tok
}

// GET /user/installations and /user/installations/{id}/repositories answer
// a user-to-server token with what its user reaches explicitly, and refuse
// a personal token.
func TestUserInstallations(t *testing.T) {
	env := forgetest.New(t)
	if _, err := env.Forge.CreateRepo("acme", "site", forge.RepoOptions{}); err != nil { // public
		t.Fatal(err)
	}
	id := strconv.FormatInt(env.Installation.ID, 10)
	alice := userToken(t, env, "alice", forgetest.AliceToken)
	if st, body := apiStatus(t, env, alice, "/user/installations"); st != http.StatusOK || !strings.Contains(body, `"total_count":1`) ||
		!strings.Contains(body, `"id":`+id) {
		t.Errorf("alice's installations: %d %s", st, body)
	}
	if st, body := apiStatus(t, env, alice, "/user/installations/"+id+"/repositories"); st != http.StatusOK ||
		!strings.Contains(body, `"full_name":"acme/catalog"`) || !strings.Contains(body, `"full_name":"acme/site"`) {
		t.Errorf("alice's repositories of the installation: %d %s", st, body)
	}
	carol := userToken(t, env, "carol", forgetest.CarolToken) // a collaborator of acme/catalog, no member
	if st, body := apiStatus(t, env, carol, "/user/installations/"+id+"/repositories"); st != http.StatusOK ||
		!strings.Contains(body, `"full_name":"acme/catalog"`) || strings.Contains(body, "acme/site") {
		t.Errorf("carol's repositories (acme/site is public, not hers): %d %s", st, body)
	}
	mallory := userToken(t, env, "mallory", forgetest.MalloryToken)
	if st, body := apiStatus(t, env, mallory, "/user/installations"); st != http.StatusOK || !strings.Contains(body, `"total_count":0`) {
		t.Errorf("mallory's installations: %d %s", st, body)
	}
	if st, _ := apiStatus(t, env, mallory, "/user/installations/"+id+"/repositories"); st != http.StatusNotFound {
		t.Errorf("mallory's repositories of acme's installation: %d, want 404", st)
	}
	if st, _ := apiStatus(t, env, forgetest.AliceToken, "/user/installations"); st != http.StatusForbidden {
		t.Errorf("a personal token: %d, want 403", st)
	}
}
