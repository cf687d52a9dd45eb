package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/handlers"
	"github.com/porchbot/porchbot/bot/ingress"
)

// TestNewServerDefaultHandlers: a server built without Handlers handles
// the default events. Not started, it answers a handled event 503 (an
// unhandled one would be answered 202 and ignored).
func TestNewServerDefaultHandlers(t *testing.T) {
	secret := []byte("s")
	s, err := NewServer(ingress.Options{WebhookSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{}`)
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	for name := range handlers.DefaultHandlers() {
		req := httptest.NewRequest(http.MethodPost, ingress.HookPath, strings.NewReader(string(body)))
		req.Header.Set("X-GitHub-Event", name)
		req.Header.Set("X-GitHub-Delivery", "d-"+name)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		w := httptest.NewRecorder()
		s.Routes().ServeHTTP(w, req)
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: answered %d %s, want 503 (handled, not started)", name, w.Code, w.Body)
		}
	}
}
