package gitstore

import (
	"path/filepath"
	"testing"
)

func TestParseLocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw, url, name, path string
	}{
		{"https://github.com/acme/packages.git", "https://github.com/acme/packages.git", "acme/packages", "github.com/acme/packages.git"},
		{"https://github.com/acme/packages", "https://github.com/acme/packages", "acme/packages", "github.com/acme/packages.git"},
		{"https://GHE.example.com/acme/packages/", "https://GHE.example.com/acme/packages", "acme/packages", "ghe.example.com/acme/packages.git"},
		{"http://127.0.0.1:8080/acme/packages.git", "http://127.0.0.1:8080/acme/packages.git", "acme/packages", "127.0.0.1_8080/acme/packages.git"},
		{"http://[::1]:8080/git/acme/my.repo.git", "http://[::1]:8080/git/acme/my.repo.git", "acme/my.repo", "__1_8080/git/acme/my.repo.git"},
	} {
		loc, err := parseLocation("/cache", tc.raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if loc.url != tc.url || loc.name != tc.name || loc.path != filepath.Join("/cache", tc.path) {
			t.Errorf("%s: got %+v, want url %s name %s path %s", tc.raw, loc, tc.url, tc.name, tc.path)
		}
	}
	for _, raw := range []string{
		"", "ssh://github.com/acme/packages.git", "git@github.com:acme/packages.git",
		"https://x-access-token:secret@github.com/acme/packages.git",
		"https://github.com/packages.git", "https://github.com/acme/../etc.git",
		"https://github.com/acme//packages", "https://github.com/acme/pack ages",
		"https:///acme/packages", "https://github.com/acme/packages?x=1",
	} {
		if loc, err := parseLocation("/cache", raw); err == nil {
			t.Errorf("%q accepted: %+v", raw, loc)
		}
	}
}
