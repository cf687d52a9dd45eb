package builtins

import (
	"strings"
	"testing"
)

// TestNotBuiltInSaysWhy: a catalog function porchbot does not build in is
// refused saying what to do instead, one that needs the machine it runs on
// saying why porchbot will not run it; another registry's image of the
// same name, and a name no catalog function has, say neither.
func TestNotBuiltInSaysWhy(t *testing.T) {
	for image, want := range map[string]string{
		"gcr.io/kpt-fn/source-gcloud-config:v0.1":       "porchbot does not run source-gcloud-config: it runs `gcloud config list`",
		"ghcr.io/kptdev/krm-functions-catalog/fix:v0.2": "fix is a kpt catalog function porchbot does not build in yet",
		"export-terraform:v0.1":                         "export-terraform is a kpt catalog function porchbot does not build in yet",
		"example.com/fns/fix:v1":                        "",
		"gcr.io/kpt-fn/frobnicate:v1":                   "",
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
