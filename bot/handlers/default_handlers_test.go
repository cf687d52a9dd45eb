package handlers

import (
	"context"
	"errors"
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
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "github-payloads", "*", "*.json"))
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
