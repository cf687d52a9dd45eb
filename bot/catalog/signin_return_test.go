package catalog_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/catalog"
)

// signInBack signs login in through the real flow, started by a link to
// the catalog's sign-in with return ret (as anyone may send one), and
// returns where the catalog's callback sends the browser: its Location,
// as the browser would read it.
func (v *viewer) signInBack(w *world, login, ret string) string {
	v.t.Helper()
	back, stopped := "", false
	c := *v.c
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev := via[len(via)-1].URL; strings.HasPrefix(prev.String(), w.catalog+catalog.CallbackPath) {
			back, stopped = req.Response.Header.Get("Location"), true
			return http.ErrUseLastResponse
		}
		return nil
	}
	resp, err := c.Get(w.catalog + catalog.LoginPath + "?return=" + url.QueryEscape(ret))
	if err != nil {
		v.t.Fatal(err)
	}
	resp.Body.Close()
	at := resp.Request.URL
	if !strings.HasPrefix(at.String(), w.forge+"/login/oauth/authorize?") {
		v.t.Fatalf("sign-in with return %q: at %s, want the forge's authorize page", ret, at)
	}
	q := at.Query()
	resp, err = c.PostForm(w.forge+"/login/oauth/authorize", url.Values{"client_id": {q.Get("client_id")},
		"redirect_uri": {q.Get("redirect_uri")}, "state": {q.Get("state")}, "login": {login}, "token": {login + "-token"}})
	if err != nil {
		v.t.Fatal(err)
	}
	resp.Body.Close()
	if !stopped {
		v.t.Fatalf("sign-in with return %q: the callback sent the browser nowhere (%d at %s)", ret, resp.StatusCode, resp.Request.URL)
	}
	return back
}

// TestSignInReturnsOnlyToTheCatalog: a link to the catalog's sign-in
// whose return is read by a browser as another site (or hides one behind
// a tab, a backslash or an encoded separator) ends on the catalog's home;
// a page of the catalog is returned to.
func TestSignInReturnsOnlyToTheCatalog(t *testing.T) {
	w := startWorld(t)
	for ret, want := range map[string]string{
		"/repos/acme/catalog?tab=1": "/repos/acme/catalog?tab=1",
		"//evil.example/":           "/",
		"/\\evil.example/":          "/",
		"\\/evil.example/":          "/",
		"/\t/evil.example/":         "/",
		"/%09/evil.example/":        "/",
		"/%2f%2fevil.example/":      "/",
		"/%5cevil.example/":         "/",
		"https://evil.example/":     "/",
		"javascript:alert(1)":       "/",
	} {
		v := newViewer(t)
		if got := v.signInBack(w, "alice", ret); got != want {
			t.Errorf("sign-in with return %q went back to %q, want %q", ret, got, want)
		}
		if status, _, at := v.get(w.catalog + want); status != http.StatusOK || at.String() != w.catalog+want {
			t.Errorf("after the sign-in with return %q: GET %s: %d at %s", ret, want, status, at)
		}
	}
}
