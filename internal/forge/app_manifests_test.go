package forge_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// manifestCode posts an App manifest to the forge's web page as a browser
// does and returns the code of the redirect to the manifest's redirect_url.
func manifestCode(t *testing.T, env *forgetest.Env, page string) string {
	t.Helper()
	m, _ := json.Marshal(map[string]any{"name": "porchbot", "url": "https://example.com",
		"redirect_url": "http://127.0.0.1:9/callback", "hook_attributes": map[string]any{"url": "https://example.com/hook"}})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(env.Forge.BaseURL()+page+"?state=s1", url.Values{"manifest": {string(m)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("POST %s: %d, want 302", page, resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Host != "127.0.0.1:9" || loc.Path != "/callback" || loc.Query().Get("state") != "s1" || loc.Query().Get("code") == "" {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	return loc.Query().Get("code")
}

// A manifest page refuses a manifest with no http(s) redirect_url, and an
// unknown organization.
func TestAppManifestPageRefusesBadManifests(t *testing.T) {
	env := forgetest.New(t)
	for page, manifest := range map[string]string{
		"/settings/apps/new":                           `{"name":"x","redirect_url":"javascript:alert(1)"}`,
		"/organizations/nobody-here/settings/apps/new": `{"name":"x","redirect_url":"http://127.0.0.1:9/cb"}`,
	} {
		resp, err := http.PostForm(env.Forge.BaseURL()+page, url.Values{"manifest": {manifest}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("POST %s %s: %d", page, manifest, resp.StatusCode)
		}
	}
}
