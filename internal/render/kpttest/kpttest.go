// Package kpttest finds the kpt a test compares porchbot with and the
// release it is, so that the comparison asks porchbot for that release's
// behaviour.
package kpttest

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// Find is the path of the kpt on PATH and its release as porchbot names
// releases ("v1.0.0-beta.56"), or why there is none to compare with.
func Find() (path, release string, err error) {
	path, err = exec.LookPath("kpt")
	if err != nil {
		return "", "", fmt.Errorf("kpt is not on PATH, so there is nothing to compare porchbot with: %w", err)
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		return "", "", fmt.Errorf("kpt version: %w", err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return path, v, nil
}

// Installed is Find, the test skipped, saying why, where there is no kpt,
// and under -short (`make test-short`: the goldens recorded from kpt run
// there; running kpt itself is for `make test`).
func Installed(t testing.TB) (path, release string) {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED comparison with the installed kpt under -short: `make test` runs it")
	}
	path, release, err := Find()
	if err != nil {
		t.Skip(err)
	}
	return path, release
}
