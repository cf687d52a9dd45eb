package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

func readFile(t testing.TB, dir, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
