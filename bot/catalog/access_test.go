package catalog_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCatalogAccessRules drives `porchbot serve`'s catalog over HTTP (no
// browser): nobody sees what they could not read on the forge, the sign-in
// checks its state, and a forged or missing session is sent to sign in.
func TestCatalogAccessRules(t *testing.T) {
	w := startWorld(t)

	// Signed out: every page starts the sign-in; nothing is shown.
	anon := newViewer(t)
	for _, p := range []string{"/", "/repos/acme/catalog", "/repos/acme/catalog/packages/basens"} {
		status, body, at := anon.get(w.catalog + p)
		if !strings.HasPrefix(at.String(), w.forge+"/login/oauth/authorize?") || strings.Contains(body, "basens") {
			t.Errorf("GET %s signed out: %d at %s", p, status, at)
		}
	}

	alice := newViewer(t)
	home := alice.signIn(w, "alice")
	for _, want := range []string{"acme/catalog", "acme/blueprints", `id="viewer">alice<`} {
		if !strings.Contains(home, want) {
			t.Errorf("alice's repositories page lacks %q:\n%s", want, home)
		}
	}
	if strings.Contains(home, "globex") {
		t.Errorf("alice sees globex/secret, which she cannot read:\n%s", home)
	}
	status, pkg, _ := alice.get(w.catalog + "/repos/acme/catalog/packages/basens")
	if status != http.StatusOK || !strings.Contains(pkg, "basens/v2") || !strings.Contains(pkg, "basens/v1") || !strings.Contains(pkg, "The base namespace") {
		t.Fatalf("alice's basens page: %d\n%s", status, pkg)
	}
	status, repo, _ := alice.get(w.catalog + "/repos/acme/catalog")
	for _, want := range []string{"index porch/index at", "drafts/basens/w1", "w1", "porchbot/render: passed",
		"basens: platinum tier", "porchbot/approval"} {
		if !strings.Contains(repo, want) {
			t.Errorf("alice's acme/catalog page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("alice's acme/catalog page: %d\n%s", status, repo)
	}
	status, web, _ := alice.get(w.catalog + "/repos/acme/blueprints/packages/web")
	if status != http.StatusOK || !strings.Contains(web, "web/v2") || strings.Contains(web, "globex") || strings.Contains(web, "edge") {
		t.Errorf("alice's web page (it must not show the downstream in globex/secret, which she cannot read): %d\n%s", status, web)
	}
	notThere, _, _ := alice.get(w.catalog + "/repos/acme/nothing-here")
	for _, p := range []string{"/repos/globex/secret", "/repos/globex/secret/packages/edge", "/repos/GLOBEX/Secret",
		"/repos/globex/secret/diff/edge?from=1&to=2"} {
		status, body, _ := alice.get(w.catalog + p)
		if status != http.StatusNotFound || status != notThere || strings.Contains(body, "edge") || strings.Contains(body, "Kptfile") {
			t.Errorf("alice GET %s: %d (a repository that does not exist: %d)\n%s", p, status, notThere, body)
		}
	}

	// bob reads both: he sees the downstream, behind v2.
	bob := newViewer(t)
	if home := bob.signIn(w, "bob"); !strings.Contains(home, "globex/secret") {
		t.Errorf("bob's repositories page lacks globex/secret:\n%s", home)
	}
	_, web, _ = bob.get(w.catalog + "/repos/acme/blueprints/packages/web")
	if !strings.Contains(web, "globex/secret") || !strings.Contains(web, "behind v2") {
		t.Errorf("bob's web page does not show globex/secret's edge behind v2:\n%s", web)
	}

	// dave reads only the public repository.
	dave := newViewer(t)
	home = dave.signIn(w, "dave")
	if !strings.Contains(home, "acme/blueprints") || strings.Contains(home, "acme/catalog") || strings.Contains(home, "globex") {
		t.Errorf("dave's repositories page:\n%s", home)
	}
	if _, web, _ := dave.get(w.catalog + "/repos/acme/blueprints/packages/web"); !strings.Contains(web, "web/v2") || strings.Contains(web, "globex") {
		t.Errorf("dave's web page:\n%s", web)
	}
	for _, p := range []string{"/repos/acme/catalog", "/repos/acme/catalog/packages/basens", "/repos/acme/catalog/diff/basens?from=1&to=2"} {
		status, body, _ := dave.get(w.catalog + p)
		if status != http.StatusNotFound || strings.Contains(body, "basens") {
			t.Errorf("dave GET %s: %d\n%s", p, status, body)
		}
	}

	// A callback whose state is not the browser's is refused, and signs
	// nobody in.
	mallet := newViewer(t)
	_, _, at := mallet.get(w.catalog + "/")
	q := at.Query()
	resp, err := mallet.c.PostForm(w.forge+"/login/oauth/authorize", url.Values{"client_id": {q.Get("client_id")},
		"redirect_uri": {q.Get("redirect_uri")}, "state": {"not-the-state"}, "login": {"alice"}, "token": {"alice-token"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("callback with a foreign state: %d, want 400", resp.StatusCode)
	}
	if _, _, at := mallet.get(w.catalog + "/"); !strings.HasPrefix(at.String(), w.forge+"/login/oauth/authorize?") {
		t.Errorf("after a refused callback, GET / is at %s: signed in", at)
	}

	// The cookies of a sign-in: HttpOnly, SameSite=Lax; the token is in
	// neither a cookie nor a URL nor a log line.
	raw := newViewer(t)
	raw.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = raw.c.Get(w.catalog + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = raw.c.Get(w.catalog + resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	authorize, _ := url.Parse(resp.Header.Get("Location"))
	state := resp.Header.Get("Set-Cookie")
	resp, err = raw.c.PostForm(w.forge+"/login/oauth/authorize", url.Values{"client_id": {authorize.Query().Get("client_id")},
		"redirect_uri": {authorize.Query().Get("redirect_uri")}, "state": {authorize.Query().Get("state")},
		"login": {"bob"}, "token": {"bob-token"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callback := resp.Header.Get("Location")
	resp, err = raw.c.Get(callback)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session string
	for _, c := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "porchbot_catalog=") {
			session = c
		}
	}
	for name, c := range map[string]string{"state": state, "session": session} {
		if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
			t.Errorf("%s cookie %q is not HttpOnly and SameSite=Lax", name, c)
		}
	}
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/" {
		t.Errorf("callback: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for what, s := range map[string]string{"the logs": w.logs.String(), "the session cookie": session,
		"the callback URL": callback, "the redirect after it": resp.Header.Get("Location")} {
		if strings.Contains(s, "ghu_") {
			t.Errorf("a user token is in %s", what)
		}
	}

	// A session cookie with a bad signature is no session.
	forged := newViewer(t)
	cu, _ := url.Parse(w.catalog)
	forged.c.Jar.SetCookies(cu, []*http.Cookie{{Name: "porchbot_catalog", Value: "abc.0123"}})
	if _, _, at := forged.get(w.catalog + "/"); !strings.HasPrefix(at.String(), w.forge+"/login/oauth/authorize?") {
		t.Errorf("a forged session cookie reached %s", at)
	}

	// Sign-out needs the page's CSRF token.
	resp, err = alice.c.PostForm(w.catalog+"/logout", url.Values{"csrf": {"guess"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token: %d, want 403", resp.StatusCode)
	}
	if status, _, _ := alice.get(w.catalog + "/repos/acme/catalog"); status != http.StatusOK {
		t.Errorf("alice after a refused sign-out: %d", status)
	}
}
