package service

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/settings"
	"github.com/porchbot/porchbot/internal/setup"
)

// TestSetupRefusesTheRunningForgesApp (#26 §5): `porchbot setup
// --github-url` pointed at the forge of a running embedded porchbot is
// refused before its browser flow starts, instead of replacing the App's
// key and secret (after which every webhook would be refused while
// /readyz still said ready); the App still answers with its own key.
func TestSetupRefusesTheRunningForgesApp(t *testing.T) {
	s, err := settings.Parse([]string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--forge-seed", "../../testdata/forge/seed.yaml", "--resync-interval", "0"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := Start(ctx, s, log, &bytes.Buffer{}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())

	started := false
	_, err = setup.Run(ctx, setup.Options{GitHubURL: srv.Embedded.Forge.BaseURL(), Listening: func(string) { started = true }})
	if err == nil || started || !strings.Contains(err.Error(), "local forge") || !strings.Contains(err.Error(), "embedded mode") {
		t.Fatalf("setup against the running forge: started %v, %v", started, err)
	}
	if _, _, err := srv.Clients.App(ctx).Apps.Get(ctx, ""); err != nil {
		t.Fatalf("the App no longer answers with porchbot's key: %v", err)
	}
}
