package forge

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Signing in to the forge's pages in a browser: GET /login shows a form
// for a user's login and personal token (the seed's), POST /login checks
// them and sets a session cookie, POST /logout ends the session. A page
// reads its viewer from the session when the request carries no
// Authorization header (basic auth and tokens work as before). The
// cookie is HttpOnly and SameSite=Strict, and every form that changes
// something carries the session's own form key, so another site cannot
// post in the viewer's name.

const (
	sessionCookie = "forge_session"
	sessionTTL    = 12 * time.Hour
	maxSessions   = 1024
	maxWebForm    = 64 << 10
)

type webSession struct {
	token   string // the user's personal token
	formKey string // the value every form of this session posts back
}

// newSession starts a session for the user whose token this is.
func (f *Forge) newSession(token string) (id string, ok bool) {
	return f.sessions.add(f.now(), webSession{token: token, formKey: randomHex(16)}, sessionTTL, maxSessions, 20)
}

// session is the live session of r's cookie.
func (f *Forge) session(r *http.Request) (string, webSession, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return "", webSession{}, false
	}
	ws, ok := f.sessions.get(f.now(), c.Value)
	return c.Value, ws, ok
}

// sessionPrincipal is who r's session signed in as (nil: none, or the
// token no longer works).
func (f *Forge) sessionPrincipal(r *http.Request) (*principal, webSession) {
	_, ws, ok := f.session(r)
	if !ok {
		return nil, webSession{}
	}
	f.mu.RLock()
	p := f.tokens[ws.token]
	f.mu.RUnlock()
	if p == nil || p.kind != principalUser {
		return nil, webSession{}
	}
	return p, ws
}

var signInPage = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the local forge</title>
<style>body{font-family:sans-serif;max-width:30em;margin:3em auto}label{display:block;margin:.5em 0}</style></head>
<body><h1>Sign in to the local forge</h1>
{{if .Error}}<p id="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="return_to" value="{{.ReturnTo}}">
<label>Login <input id="login" name="login" autocomplete="username"></label>
<label>Token <input id="token" name="token" type="password" autocomplete="current-password"></label>
<button id="sign-in" type="submit">Sign in</button>
</form>
<p>The users and tokens are the forge's seed (make run: alice / alice-token, bob / bob-token, carol / carol-token).</p>
</body></html>
`))

// webSignIn shows the sign-in form (GET) or signs in (POST).
func (f *Forge) webSignIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxWebForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	page := struct{ ReturnTo, Error string }{localPath(r.Form.Get("return_to")), ""}
	if r.Method == http.MethodPost {
		login, token := r.PostForm.Get("login"), r.PostForm.Get("token")
		if a := f.signIn(login, token); a != nil {
			id, ok := f.newSession(token)
			if !ok {
				http.Error(w, "too many sessions", http.StatusTooManyRequests)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode, MaxAge: int(sessionTTL / time.Second)})
			http.Redirect(w, r, page.ReturnTo, http.StatusSeeOther)
			return
		}
		page.Error = "Incorrect login or token."
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	if page.Error != "" {
		w.WriteHeader(http.StatusUnauthorized)
	}
	_ = signInPage.Execute(w, page)
}

// webSignOut ends the session (its form key required).
func (f *Forge) webSignOut(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxWebForm)
	_ = r.ParseForm()
	if id, ws, ok := f.session(r); ok && subtle.ConstantTimeCompare([]byte(r.PostForm.Get("form_key")), []byte(ws.formKey)) == 1 {
		f.sessions.take(f.now(), id)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// localPath is p when it is a path of this site, else "/": a sign-in
// never sends the browser elsewhere.
func localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || p == "" || u.IsAbs() || u.Host != "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") ||
		strings.Contains(p, `\`) {
		return "/"
	}
	return p
}
