package catalog

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The state cookie is bound to its state, its expiry and this process's
// key: another state, an expired or altered cookie, or one signed by
// another process is refused.
func TestSignInState(t *testing.T) {
	ss, err := newSessions()
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newSessions()
	now := time.Unix(1700000000, 0)
	st := signInState{state: "s1", back: "/repos/acme/catalog", expires: now.Add(stateTTL)}
	req := func(c *http.Cookie) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/login/callback", nil)
		if c != nil {
			r.AddCookie(c)
		}
		return r
	}
	good := ss.stateCookie(st, false)
	if back, err := ss.checkState(req(good), "s1", now); err != nil || back != "/repos/acme/catalog" {
		t.Fatalf("the browser's own state: %q %v", back, err)
	}
	altered := *good
	altered.Value = "s2" + good.Value[2:]
	for name, c := range map[string]struct {
		cookie *http.Cookie
		state  string
		at     time.Time
	}{
		"no cookie":            {nil, "s1", now},
		"another state":        {good, "s2", now},
		"no state":             {good, "", now},
		"expired":              {good, "s1", now.Add(stateTTL + time.Second)},
		"altered":              {&altered, "s2", now},
		"another process's":    {other.stateCookie(st, false), "s1", now},
		"a session, not state": {&http.Cookie{Name: stateCookie, Value: ss.sign("id")}, "id", now},
	} {
		if _, err := ss.checkState(req(c.cookie), c.state, c.at); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
