// Package kpttest finds the kpt a test compares porchbot with and the
// release it is, so that the comparison asks porchbot for that release's
// behaviour.
package kpttest

import (
	"os/exec"
	"strings"
	"testing"
)

// Installed is the path of the kpt on PATH and its release as porchbot
// names releases ("v1.0.0-beta.56"). The test is skipped, saying so,
// where kpt is absent or does not say its version.
func Installed(t testing.TB) (path, release string) {
	t.Helper()
	path, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt is not on PATH, so there is nothing to compare porchbot with: ", err)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		t.Skipf("kpt version: %v", err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return path, v
}
