package catalog

import (
	"crypto/subtle"
	"net/http"
	"net/url"

	"github.com/porchbot/porchbot/internal/catalog"
)

// maxLogoutForm bounds the sign-out form.
const maxLogoutForm = 4 << 10

// serveLogin starts a sign-in: a fresh OAuth state in a signed cookie, and
// the browser sent to GitHub's authorize page.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	st := signInState{state: randomToken(), back: returnPath(r.URL.Query().Get("return")), expires: s.now().Add(stateTTL)}
	http.SetCookie(w, s.sessions.stateCookie(st, s.opts.Secure))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, s.opts.OAuth.AuthorizeURL(st.state), http.StatusFound)
}

// serveCallback ends a sign-in: the state must be the one this browser
// started with; the code is traded for the viewer's token, and GitHub says
// who they are.
func (s *Server) serveCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, err := s.sessions.checkState(r, q.Get("state"), s.now())
	http.SetCookie(w, cookie(stateCookie, "", -1, s.opts.Secure))
	if err != nil {
		s.log().Warn("catalog: sign-in refused: its state is missing, expired or not this browser's")
		s.message(w, http.StatusBadRequest, catalog.Page{Title: "Sign-in refused", Data: err.Error()})
		return
	}
	if e := q.Get("error"); e != "" || q.Get("code") == "" {
		s.message(w, http.StatusForbidden, catalog.Page{Title: "Not signed in", Data: "GitHub did not authorize the sign-in."})
		return
	}
	token, ttl, err := s.opts.OAuth.Exchange(r.Context(), q.Get("code"))
	if err != nil {
		s.log().WithError(err).Warn("catalog: sign-in failed")
		s.message(w, http.StatusBadGateway, catalog.Page{Title: "Not signed in", Data: "GitHub did not confirm the sign-in; try again."})
		return
	}
	login, err := s.opts.Users.api(r.Context(), token).Login(r.Context())
	if err != nil {
		s.log().WithError(err).Warn("catalog: sign-in failed")
		s.message(w, http.StatusBadGateway, catalog.Page{Title: "Not signed in", Data: "GitHub did not say who you are; try again."})
		return
	}
	now := s.now()
	ss := s.sessions.create(login, token, now, now.Add(ttl))
	s.log().WithField("viewer", login).Info("catalog: signed in")
	http.SetCookie(w, cookie(sessionCookie, s.sessions.sign(ss.id), int(ttl.Seconds()), s.opts.Secure))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, back, http.StatusFound)
}

// serveLogout ends the session (its form carries the session's CSRF token).
func (s *Server) serveLogout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLogoutForm)
	ss := s.sessions.of(r, s.now())
	if ss != nil {
		if err := r.ParseForm(); err != nil || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(ss.csrf)) != 1 {
			s.message(w, http.StatusForbidden, catalog.Page{Title: "Not signed out", Data: "The sign-out did not come from the catalog's page."})
			return
		}
		s.sessions.end(ss)
	}
	http.SetCookie(w, cookie(sessionCookie, "", -1, s.opts.Secure))
	s.message(w, http.StatusOK, catalog.Page{Title: "Signed out", Data: "You are signed out of the catalog."})
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// pathVar is a route variable unescaped (the router matches escaped paths).
func pathVar(v string) string {
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}
