package forge_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestHeldAppRefusesTheManifestFlow (#26 §5): while a porchbot of the
// embedded mode holds the forge's App, its manifest page and a pending
// code's conversion answer 409 saying why, and GET /_forge/app names the
// holder, instead of replacing the App's key and secret.
func TestHeldAppRefusesTheManifestFlow(t *testing.T) {
	env := forgetest.New(t)
	code := manifestCode(t, env, "/settings/apps/new") // begun before the hold
	env.Forge.HoldApp("the porchbot serving it")

	m, _ := json.Marshal(map[string]any{"name": "x", "redirect_url": "http://127.0.0.1:9/cb"})
	resp, err := http.PostForm(env.Forge.BaseURL()+"/settings/apps/new", url.Values{"manifest": {string(m)}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "the porchbot serving it") {
		t.Fatalf("manifest page while held: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Post(env.Forge.APIURL()+"app-manifests/"+code+"/conversions", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("conversion while held: %d", resp.StatusCode)
	}
	resp, err = http.Get(env.Forge.BaseURL() + "/_forge/app")
	if err != nil {
		t.Fatal(err)
	}
	var hold map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&hold)
	resp.Body.Close()
	if hold["heldBy"] != "the porchbot serving it" {
		t.Fatalf("GET /_forge/app: %v", hold)
	}
}
