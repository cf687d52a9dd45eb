package setup

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// The embedded app.yaml is the repository's, byte for byte.
func TestEmbeddedAppYAMLIsTheRepositorys(t *testing.T) {
	repo, err := os.ReadFile("../../app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(repo, appYAML) {
		t.Fatal("internal/setup/app.yaml differs from app.yaml: cp app.yaml internal/setup/app.yaml")
	}
}

func TestBuildManifest(t *testing.T) {
	b, err := BuildManifest("http://127.0.0.1:1234/callback", "https://bot.example.org/api/github/hook")
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "porchbot" || m.RedirectURL != "http://127.0.0.1:1234/callback" || m.Public ||
		m.DefaultPermissions["contents"] != "write" || m.HookAttributes["url"] != "https://bot.example.org/api/github/hook" || len(m.DefaultEvents) < 5 {
		t.Fatalf("manifest = %+v", m)
	}
}
