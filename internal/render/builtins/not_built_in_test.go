package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotBuiltInSaysWhy: a catalog function porchbot does not build in is
// refused saying what to do instead, one that needs the machine it runs on
// saying why porchbot will not run it; another registry's image of the
// same name, and a name no catalog function has, say neither.
func TestNotBuiltInSaysWhy(t *testing.T) {
	for image, want := range map[string]string{
		"gcr.io/kpt-fn/source-gcloud-config:v0.1":          "porchbot does not run source-gcloud-config: it runs `gcloud config list`",
		"ghcr.io/kptdev/krm-functions-catalog/bind:latest": "the kpt catalog has published no release of bind",
		"bind:v0.1":                   "the kpt catalog has published no release of bind",
		"example.com/fns/bind:v0.1":   "",
		"gcr.io/kpt-fn/frobnicate:v1": "",
	} {
		_, err := Resolve(image, "")
		if err == nil {
			t.Fatalf("%s resolved", image)
		}
		msg := err.Error()
		if want == "" {
			if strings.Contains(msg, "does not build in yet") || strings.Contains(msg, "does not run") {
				t.Errorf("%s: %s", image, msg)
			}
			continue
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %s\nwant it to say %q", image, msg, want)
		}
	}
	for _, name := range Names() {
		if notBuiltInWhy(name) != "" {
			t.Errorf("%s is built in, yet refused", name)
		}
		found := false
		for _, c := range catalogFunctions {
			found = found || c == name
		}
		if !found {
			t.Errorf("the built-in %s is not in catalogFunctions", name)
		}
	}
}

// TestDocsListTheFunctionsNotBuiltIn: docs/functions.md names every
// catalog function porchbot does not build in, in its section.
func TestDocsListTheFunctionsNotBuiltIn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "functions.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "## Catalog functions porchbot does not build in\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, name := range catalogFunctions {
		_, built := Lookup(name)
		listed := strings.Contains(strings.ReplaceAll(section, "\n", " "), name)
		if built == listed {
			t.Errorf("%s: built in %v, listed as not built in %v", name, built, listed)
		}
	}
}
