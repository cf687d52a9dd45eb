package render

import (
	"fmt"
	"testing"

	"github.com/porchbot/porchbot/internal/render/kpttest"
)

// findKpt is the kpt on PATH and the release porchbot reproduces to
// compare with it, or why there is none.
func findKpt() (string, KptRelease, error) {
	path, v, err := kpttest.Find()
	if err != nil {
		return "", "", err
	}
	rel, err := ParseKptRelease(v)
	if err != nil {
		return "", "", fmt.Errorf("the installed kpt cannot be compared with: %w", err)
	}
	return path, rel, nil
}

// installedKpt is findKpt, the test skipped where there is none.
func installedKpt(t testing.TB) (string, KptRelease) {
	t.Helper()
	path, rel, err := findKpt()
	if err != nil {
		t.Skip(err)
	}
	return path, rel
}
