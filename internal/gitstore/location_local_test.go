package gitstore

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalAndSSHLocations(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Options{Dir: dir, AllowLocalAndSSH: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ in, url, name string }{
		{"/srv/git/catalog", "file:///srv/git/catalog", "git/catalog"},
		{"/srv/git/../git/catalog.git/", "file:///srv/git/catalog.git", "git/catalog"},
		{"file:///srv/git/catalog", "file:///srv/git/catalog", "git/catalog"},
		{"ssh://git@github.com/org/repo.git", "ssh://git@github.com/org/repo.git", "org/repo"},
		{"git@github.com:org/repo.git", "git@github.com:org/repo.git", "org/repo"},
		{"https://github.com/org/repo.git", "https://github.com/org/repo.git", "org/repo"},
	} {
		loc, err := s.locate(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if loc.url != tc.url || loc.name != tc.name {
			t.Errorf("%q: url %q name %q, want %q %q", tc.in, loc.url, loc.name, tc.url, tc.name)
		}
		if rel, err := filepath.Rel(dir, loc.path); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%q: cache %s outside %s", tc.in, loc.path, dir)
		}
	}
	for _, bad := range []string{"file://host/x", "relative/path", "ssh://:pw@/x", "ssh://u:pw@host/x"} {
		if loc, err := s.locate(bad); err == nil {
			t.Errorf("%q accepted as %+v", bad, loc)
		}
	}
	plain, err := New(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for _, in := range []string{"/srv/git/catalog", "file:///srv/git/catalog", "git@github.com:org/repo.git", "ssh://git@github.com/org/repo"} {
		if _, err := plain.Repo(in); err == nil {
			t.Errorf("a store without AllowLocalAndSSH accepted %q", in)
		}
	}
}
