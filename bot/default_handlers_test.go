package bot

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/ingress"
)

// TestDefaultHandlersOnRealPayloads runs each default handler on the real
// GitHub example payloads of its event (testdata/github-payloads).
func TestDefaultHandlersOnRealPayloads(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "github-payloads", "*", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("real payloads are required (testdata/github-payloads): %v", err)
	}
	defaults := DefaultHandlers()
	for _, p := range paths {
		event := filepath.Base(filepath.Dir(p))
		h := defaults[event]
		if h == nil {
			continue
		}
		t.Run(event+"/"+strings.TrimSuffix(filepath.Base(p), ".json"), func(t *testing.T) {
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Handle(context.Background(), &ingress.Event{Name: event, Raw: body}); err != nil {
				t.Errorf("default %s handler: %v", event, err)
			}
		})
	}
}

func TestDefaultHandlersRejectWrongPayload(t *testing.T) {
	for name, h := range DefaultHandlers() {
		ev := &ingress.Event{Name: name, Payload: &github.StarEvent{}}
		if err := h.Handle(context.Background(), ev); !errors.Is(err, ErrUnexpectedPayload) {
			t.Errorf("%s handler with a StarEvent: %v, want ErrUnexpectedPayload", name, err)
		}
	}
}

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
	for name := range DefaultHandlers() {
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
