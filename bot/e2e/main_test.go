package e2e

import (
	"os"
	"testing"

	"github.com/porchbot/porchbot/internal/render"
)

// TestMain lets this test binary be the function sandbox of the porchbot
// it runs, as porchbot's own main is (docs/limits.md).
func TestMain(m *testing.M) {
	if code, ok := render.RunSandboxChild(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
