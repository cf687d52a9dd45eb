package settings_test

import (
	"os"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/settings"
)

// TestOperationsDocListsEverySetting: docs/operations.md names every
// setting's environment variable and flag.
func TestOperationsDocListsEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range settings.Options {
		if !strings.Contains(string(doc), "`"+o.Env+"`") {
			t.Errorf("docs/operations.md does not list %s", o.Env)
		}
		if o.Flag != "" && !strings.Contains(string(doc), "`--"+o.Flag+"`") {
			t.Errorf("docs/operations.md does not list --%s", o.Flag)
		}
	}
}
