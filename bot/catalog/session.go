package catalog

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Cookies. The session cookie carries a random session id and its HMAC
// (the token stays on the server); the state cookie carries the OAuth
// state of one sign-in and the page to go back to, signed the same way.
const (
	sessionCookie = "porchbot_catalog"
	stateCookie   = "porchbot_catalog_state"
	stateTTL      = 10 * time.Minute
	// maxSessions bounds the sessions kept; the oldest goes first.
	maxSessions = 10000
	// readTTL is how long the list of the repositories a viewer can read,
	// as GitHub answered it, is reused.
	readTTL = 5 * time.Minute
)

// session is one signed-in viewer.
type session struct {
	id, login string
	token     string // the user-to-server token: never logged, never in a URL
	csrf      string
	created   time.Time
	expires   time.Time

	mu     sync.Mutex
	read   map[string]bool // lower-case owner/name the viewer can read (private ones)
	readAt time.Time
}

// sessions are the signed-in viewers of this process.
type sessions struct {
	key []byte // HMAC key of the cookies, fresh per process
	mu  sync.Mutex
	m   map[string]*session
}

func newSessions() (*sessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &sessions{key: key, m: map[string]*session{}}, nil
}

func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic("catalog: crypto/rand: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// sign is value and its HMAC, "value.mac".
func (s *sessions) sign(value string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(value))
	return value + "." + hex.EncodeToString(m.Sum(nil))
}

// verify returns the value of a signed string.
func (s *sessions) verify(signed string) (string, bool) {
	i := strings.LastIndexByte(signed, '.')
	if i < 0 {
		return "", false
	}
	want := s.sign(signed[:i])
	if subtle.ConstantTimeCompare([]byte(want), []byte(signed)) != 1 {
		return "", false
	}
	return signed[:i], true
}

// create starts a session for login, valid until expires.
func (s *sessions) create(login, token string, now, expires time.Time) *session {
	ss := &session{id: randomToken(), login: login, token: token, csrf: randomToken(), created: now, expires: expires}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.m {
		if !now.Before(old.expires) {
			delete(s.m, id)
		}
	}
	for len(s.m) >= maxSessions {
		oldest := ""
		for id, old := range s.m {
			if oldest == "" || old.created.Before(s.m[oldest].created) {
				oldest = id
			}
		}
		delete(s.m, oldest)
	}
	s.m[ss.id] = ss
	return ss
}

// of is the request's session, if its cookie is good and it has not expired.
func (s *sessions) of(r *http.Request, now time.Time) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	id, ok := s.verify(c.Value)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[id]
	if !ok || !now.Before(ss.expires) {
		delete(s.m, id)
		return nil
	}
	return ss
}

func (s *sessions) end(ss *session) {
	s.mu.Lock()
	delete(s.m, ss.id)
	s.mu.Unlock()
}

// cookie is a cookie of the catalog: HttpOnly, SameSite=Lax, Secure when
// the catalog is served over HTTPS.
func cookie(name, value string, maxAge int, secure bool) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secure}
}

// signInState is one sign-in under way: the OAuth state and where to go
// back to.
type signInState struct {
	state, back string
	expires     time.Time
}

func (s *sessions) stateCookie(st signInState, secure bool) *http.Cookie {
	v := st.state + "|" + strconv.FormatInt(st.expires.Unix(), 10) + "|" + base64.RawURLEncoding.EncodeToString([]byte(st.back))
	return cookie(stateCookie, s.sign(v), int(stateTTL.Seconds()), secure)
}

var errBadState = errors.New("the sign-in expired or did not start here; sign in again")

// checkState reads the state cookie and compares its state with the one
// GitHub sent back.
func (s *sessions) checkState(r *http.Request, got string, now time.Time) (string, error) {
	c, err := r.Cookie(stateCookie)
	if err != nil {
		return "", errBadState
	}
	v, ok := s.verify(c.Value)
	if !ok {
		return "", errBadState
	}
	parts := strings.Split(v, "|")
	if len(parts) != 3 {
		return "", errBadState
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !now.Before(time.Unix(exp, 0)) || got == "" || subtle.ConstantTimeCompare([]byte(parts[0]), []byte(got)) != 1 {
		return "", errBadState
	}
	back, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "", errBadState
	}
	return returnPath(string(back)), nil
}
