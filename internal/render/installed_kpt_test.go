package render

import (
	"testing"

	"github.com/porchbot/porchbot/internal/render/kpttest"
)

// installedKpt is the kpt on PATH and the release porchbot reproduces to
// compare with it; the test is skipped where porchbot does not reproduce
// that release.
func installedKpt(t testing.TB) (string, KptRelease) {
	t.Helper()
	path, v := kpttest.Installed(t)
	rel, err := ParseKptRelease(v)
	if err != nil {
		t.Skipf("the installed kpt cannot be compared with: %v", err)
	}
	return path, rel
}
