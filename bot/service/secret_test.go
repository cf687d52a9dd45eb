package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/settings"
)

// TestEmbeddedModeHonoursTheWebhookSecret: with no App credentials but a
// PORCHBOT_WEBHOOK_SECRET, the embedded forge signs with that secret and
// the bot verifies with it, so a sender configured with the documented
// secret is accepted; a delivery signed with another secret is refused.
func TestEmbeddedModeHonoursTheWebhookSecret(t *testing.T) {
	const secret = "documented-secret"
	env := map[string]string{"PORCHBOT_WEBHOOK_SECRET": secret}
	s, err := settings.Parse([]string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0",
		"--data-dir", t.TempDir(), "--forge-seed", "../../testdata/forge/seed.yaml", "--resync-interval", "0"},
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if !s.Embedded() {
		t.Fatal("a webhook secret alone must still mean the embedded forge")
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	srv, err := Start(context.Background(), s, log, io.Discard, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close(context.Background()) }()
	if got := string(srv.Embedded.WebhookSecret); got != secret {
		t.Fatalf("the embedded forge signs with %q, want the explicit %q", got, secret)
	}
	post := func(key string) int {
		body := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write(body)
		req, err := http.NewRequest(http.MethodPost, srv.HookURL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "ping")
		req.Header.Set("X-GitHub-Delivery", "delivery-"+key)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(secret); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("a delivery signed with the documented secret: %d", code)
	}
	if code := post("another-secret"); code != http.StatusUnauthorized {
		t.Fatalf("a delivery signed with another secret: %d, want 401", code)
	}
}
