package service

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
	"github.com/porchbot/porchbot/internal/settings"
)

// TestServeChecksTheAppCredentialsAtStart: `porchbot serve` with App
// credentials calls GET /app on the forge before serving; a key that does
// not parse, a key of another App or a wrong App id stop it with one line
// naming what the user gave (flag or environment variable).
func TestServeChecksTheAppCredentialsAtStart(t *testing.T) {
	env := forgetest.New(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	otherKey := filepath.Join(dir, "other.pem")
	if err := os.WriteFile(otherKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)}), 0o600); err != nil {
		t.Fatal(err)
	}
	goodID := strconv.FormatInt(forgetest.AppID, 10)
	wrongID := strconv.FormatInt(forgetest.AppID+1, 10)
	cases := []struct {
		name        string
		args        []string
		env         map[string]string
		want, never []string // in the error, and not in it ("" want: starts)
	}{
		{name: "good", args: []string{"--app-id", goodID}, env: map[string]string{"PORCHBOT_PRIVATE_KEY": string(env.PrivateKeyPEM)}},
		{name: "wrong id by flag", args: []string{"--app-id", wrongID}, env: map[string]string{"PORCHBOT_PRIVATE_KEY": string(env.PrivateKeyPEM)},
			want: []string{"401", "key from PORCHBOT_PRIVATE_KEY is a key of App " + wrongID + " from --app-id"}, never: []string{"PORCHBOT_APP_ID"}},
		{name: "wrong id by environment", env: map[string]string{"PORCHBOT_APP_ID": wrongID, "PORCHBOT_PRIVATE_KEY": string(env.PrivateKeyPEM)},
			want: []string{"401", "from PORCHBOT_APP_ID"}, never: []string{"--app-id"}},
		{name: "another App's key", args: []string{"--app-id", goodID, "--private-key-path", otherKey},
			want: []string{"401", "key from --private-key-path is a key of App " + goodID + " from --app-id"}, never: []string{"PORCHBOT_PRIVATE_KEY"}},
		{name: "garbage key", args: []string{"--app-id", goodID}, env: map[string]string{"PORCHBOT_PRIVATE_KEY": "not a key"},
			want: []string{"private key from PORCHBOT_PRIVATE_KEY is not an RSA private key"}, never: []string{"--private-key-path"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars := map[string]string{"PORCHBOT_WEBHOOK_SECRET": "s"}
			for k, v := range c.env {
				vars[k] = v
			}
			s, err := settings.Parse(append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--resync-interval", "0",
				"--github-url", env.Forge.BaseURL()}, c.args...), func(k string) string { return vars[k] })
			if err != nil {
				t.Fatal(err)
			}
			log := logrus.New()
			log.SetOutput(io.Discard)
			srv, err := Start(context.Background(), s, log, io.Discard, "test")
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("good credentials refused: %v", err)
				}
				_ = srv.Close(context.Background())
				return
			}
			if err == nil {
				_ = srv.Close(context.Background())
				t.Fatal("started with wrong credentials")
			}
			msg := err.Error()
			t.Logf("refused: %s", msg)
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			for _, n := range c.never {
				if strings.Contains(msg, n) {
					t.Errorf("error %q names %q, which the user did not give", msg, n)
				}
			}
		})
	}
}

// TestEmbeddedSeedErrorsNameWhatWasGiven: a seed with a typo stops the
// embedded mode with the seed's field and line, under the flag or the
// environment variable that named the file, saying "embedded forge" once.
func TestEmbeddedSeedErrorsNameWhatWasGiven(t *testing.T) {
	seed := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(seed, []byte("users:\n  - {login: alice, tokn: t}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args        []string
		env         map[string]string
		want, never string
	}{
		{args: []string{"--forge-seed", seed}, want: "--forge-seed: " + seed + `:2:20: unknown field "tokn"`, never: "PORCHBOT_FORGE_SEED"},
		{env: map[string]string{"PORCHBOT_FORGE_SEED": seed}, want: "PORCHBOT_FORGE_SEED: " + seed + ":2:20:", never: "--forge-seed"},
		{args: []string{"--forge-seed", seed + ".missing"}, want: "--forge-seed: open " + seed + ".missing", never: "PORCHBOT_FORGE_SEED"},
	} {
		s, err := settings.Parse(append([]string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0", "--data-dir", t.TempDir()},
			c.args...), func(k string) string { return c.env[k] })
		if err != nil {
			t.Fatal(err)
		}
		log := logrus.New()
		log.SetOutput(io.Discard)
		srv, err := Start(context.Background(), s, log, io.Discard, "test")
		if err == nil {
			_ = srv.Close(context.Background())
			t.Fatalf("%v %v: started with a broken seed", c.args, c.env)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, c.never) || strings.Count(msg, "embedded forge") != 1 ||
			strings.Contains(msg, "forge seed") {
			t.Errorf("error %q: want %q, once \"embedded forge\", and no %q", msg, c.want, c.never)
		}
	}
}
