package forge

import (
	"crypto/subtle"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/gorilla/mux"
)

// The App's OAuth web flow (user authorization), shaped as GitHub's: a
// browser goes to GET /login/oauth/authorize?client_id&redirect_uri&state,
// signs in (on the forge: login and personal token, as for git), and is
// sent back to redirect_uri with a single-use code and the state; the App's
// server trades the code for a user-to-server token at
// POST /login/oauth/access_token with its client id and secret. The token
// acts as the user on the repositories where the App is installed (and
// on public ones), and expires after eight hours, as GitHub's do.

const (
	oauthCodeTTL       = 10 * time.Minute
	userTokenTTL       = 8 * time.Hour
	maxPendingOAuth    = 1024
	maxOAuthForm       = 16 << 10
	oauthErrorDocs     = "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"
	userTokenPrefix    = "ghu_"
	refreshTokenPrefix = "ghr_"
)

// oauthGrant is a code waiting for its exchange.
type oauthGrant struct {
	account     *Account
	redirectURI string
}

// SetAppCallbackURLs sets the callback URLs of the App's user
// authorization: a redirect_uri must be one of them or below one (same
// scheme, host and port; a path under the callback's), as on GitHub.
func (f *Forge) SetAppCallbackURLs(urls ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.app != nil {
		f.app.CallbackURLs = append([]string(nil), urls...)
	}
}

// routesOAuth serves the web side of the user authorization.
func (f *Forge) routesOAuth(root *mux.Router) {
	root.HandleFunc("/login/oauth/authorize", f.webOAuthAuthorize).Methods(http.MethodGet, http.MethodPost)
	root.HandleFunc("/login/oauth/access_token", f.oauthAccessToken).Methods(http.MethodPost)
}

// redirectAllowed: is raw one of the callbacks or below one?
func redirectAllowed(raw string, callbacks []string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return false
	}
	for _, c := range callbacks {
		cb, err := url.Parse(c)
		if err != nil || cb.Scheme != u.Scheme || !strings.EqualFold(cb.Host, u.Host) {
			continue
		}
		p, base := path.Clean("/"+u.Path), path.Clean("/"+cb.Path)
		if p == base || strings.HasPrefix(p, strings.TrimSuffix(base, "/")+"/") {
			return true
		}
	}
	return false
}

var oauthSignInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in to authorize {{.App}}</title></head>
<body style="font-family: sans-serif; max-width: 28em; margin: 3em auto">
<h1>Authorize {{.App}}</h1>
<p>{{.App}} asks to know who you are and to read what you can read where it is installed.</p>
{{if .Error}}<p id="error" style="color: #b00">{{.Error}}</p>{{end}}
<form method="post" action="/login/oauth/authorize">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.RedirectURI}}">
<input type="hidden" name="state" value="{{.State}}">
<p><label>Login <input id="login" name="login" autocomplete="username"></label></p>
<p><label>Token <input id="token" name="token" type="password" autocomplete="current-password"></label></p>
<p><button id="authorize" type="submit">Sign in and authorize</button></p>
</form></body></html>
`))

// webOAuthAuthorize shows the sign-in form (GET) and, once the viewer is
// known (the form posted, or basic auth on the request), redirects to the
// redirect_uri with a code and the state.
func (f *Forge) webOAuthAuthorize(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOAuthForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	app := f.appInfo()
	clientID := r.Form.Get("client_id")
	if app == nil || clientID == "" || subtle.ConstantTimeCompare([]byte(clientID), []byte(app.ClientID)) != 1 {
		http.Error(w, "404: no application has this client_id", http.StatusNotFound)
		return
	}
	redirectURI := r.Form.Get("redirect_uri")
	if redirectURI == "" && len(app.CallbackURLs) > 0 {
		redirectURI = app.CallbackURLs[0]
	}
	if !redirectAllowed(redirectURI, app.CallbackURLs) {
		http.Error(w, "The redirect_uri is not associated with this application.", http.StatusBadRequest)
		return
	}
	page := struct{ App, ClientID, RedirectURI, State, Error string }{app.Name, clientID, redirectURI, r.Form.Get("state"), ""}
	var who *Account
	if r.Method == http.MethodPost {
		who = f.signIn(r.PostForm.Get("login"), r.PostForm.Get("token"))
		if who == nil {
			page.Error = "Incorrect login or token."
		}
	} else if p, err := f.authenticate(r); err == nil && p != nil && p.kind == principalUser {
		who = p.account
	}
	if who == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		if page.Error != "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_ = oauthSignInPage.Execute(w, page)
		return
	}
	code, ok := f.grantCode(who, redirectURI)
	if !ok {
		http.Error(w, "too many authorizations waiting for their exchange", http.StatusTooManyRequests)
		return
	}
	back, _ := url.Parse(redirectURI)
	q := back.Query()
	q.Set("code", code)
	if s := page.State; s != "" {
		q.Set("state", s)
	}
	back.RawQuery = q.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// signIn is the user whose login and personal token these are.
func (f *Forge) signIn(login, token string) *Account {
	a, ok := f.Account(strings.TrimSpace(login))
	if !ok || a.Type != "User" || a.Token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(a.Token)) != 1 {
		return nil
	}
	return a
}

// grantCode issues a single-use code for who (false when too many wait).
func (f *Forge) grantCode(who *Account, redirectURI string) (string, bool) {
	return f.oauth.add(f.now(), oauthGrant{account: who, redirectURI: redirectURI}, oauthCodeTTL, maxPendingOAuth, 10)
}

// takeCode removes and returns the grant of code: a code is exchanged once.
func (f *Forge) takeCode(code string) (oauthGrant, bool) {
	return f.oauth.take(f.now(), code)
}

// oauthAccessToken trades a code for a user-to-server token. As GitHub, it
// answers 200 even for errors, with an "error" member, in JSON when the
// client accepts it and form-encoded otherwise.
func (f *Forge) oauthAccessToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOAuthForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	app := f.appInfo()
	id, secret := r.Form.Get("client_id"), r.Form.Get("client_secret")
	if app == nil || subtle.ConstantTimeCompare([]byte(id), []byte(app.ClientID)) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(app.ClientSecret)) != 1 {
		oauthAnswer(w, r, map[string]any{"error": "incorrect_client_credentials",
			"error_description": "The client_id and/or client_secret passed are incorrect.", "error_uri": oauthErrorDocs})
		return
	}
	grant, ok := f.takeCode(r.Form.Get("code"))
	if !ok {
		oauthAnswer(w, r, map[string]any{"error": "bad_verification_code",
			"error_description": "The code passed is incorrect or expired.", "error_uri": oauthErrorDocs})
		return
	}
	if ru := r.Form.Get("redirect_uri"); ru != "" && ru != grant.redirectURI {
		oauthAnswer(w, r, map[string]any{"error": "redirect_uri_mismatch",
			"error_description": "The redirect_uri MUST match the registered callback URL for this application.", "error_uri": oauthErrorDocs})
		return
	}
	tok := userTokenPrefix + randomHex(18)
	f.mu.Lock()
	f.tokens[tok] = &principal{kind: principalUser, account: grant.account, expires: f.now().Add(userTokenTTL), viaApp: true}
	f.mu.Unlock()
	oauthAnswer(w, r, map[string]any{"access_token": tok, "expires_in": int(userTokenTTL.Seconds()),
		"refresh_token": refreshTokenPrefix + randomHex(30), "refresh_token_expires_in": 15811200,
		"token_type": "bearer", "scope": ""})
}

func oauthAnswer(w http.ResponseWriter, r *http.Request, v map[string]any) {
	w.Header().Set("Cache-Control", "no-store")
	if strings.Contains(r.Header.Get("Accept"), "json") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(v)
		return
	}
	form := url.Values{}
	for k, val := range v {
		b, _ := json.Marshal(val)
		form.Set(k, strings.Trim(string(b), `"`))
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	_, _ = w.Write([]byte(form.Encode()))
}

// AppOAuthClient is the App's OAuth client id and secret ("" when no App
// is registered).
func (f *Forge) AppOAuthClient() (id, secret string) {
	if app := f.appInfo(); app != nil {
		return app.ClientID, app.ClientSecret
	}
	return "", ""
}
