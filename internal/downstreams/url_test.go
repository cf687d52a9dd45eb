package downstreams

import (
	"errors"
	"testing"
)

func TestParseRepoURLForms(t *testing.T) {
	const gh = "github.com/org/repo"
	for _, tc := range []struct {
		in, want string
	}{
		{"https://github.com/org/repo", gh},
		{"https://github.com/org/repo.git", gh},
		{"https://github.com/org/repo/", gh},
		{"https://github.com/org/repo.git/", gh},
		{"https://GitHub.com/Org/Repo.git", gh},
		{"https://github.com:443/org/repo", gh},
		{"http://github.com/org/repo", gh},
		{"git@github.com:org/repo.git", gh},
		{"git@github.com:org/repo", gh},
		{"git@github.com:/org/repo.git", gh},
		{"ssh://git@github.com/org/repo.git", gh},
		{"ssh://git@github.com:22/org/repo", gh},
		{"git+ssh://git@github.com/Org/Repo", gh},
		{"  https://github.com/org/repo  ", gh},
		// GitHub Enterprise Server: its host, its own SSH port
		{"https://ghe.example.com/team/app.git", "ghe.example.com/team/app"},
		{"git@ghe.example.com:team/app.git", "ghe.example.com/team/app"},
		{"ssh://git@ghe.example.com:122/team/app.git", "ghe.example.com/team/app"},
		{"https://GHE.Example.com/Team/App", "ghe.example.com/team/app"},
		// the embedded forge: plain http on a port, which is kept
		{"http://127.0.0.1:8089/acme/catalog.git", "127.0.0.1:8089/acme/catalog"},
		{"http://127.0.0.1:8089/acme/catalog", "127.0.0.1:8089/acme/catalog"},
		{"http://localhost:80/acme/catalog", "localhost/acme/catalog"},
		// a path prefix is part of the identity
		{"https://git.example.com/scm/org/repo.git", "git.example.com/scm/org/repo"},
	} {
		got, err := ParseRepoURL(tc.in)
		if err != nil {
			t.Errorf("ParseRepoURL(%q): %v", tc.in, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("ParseRepoURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseRepoURLDistinguishes(t *testing.T) {
	for _, pair := range [][2]string{
		{"https://github.com/org/repo", "https://github.com/org/repo2"},
		{"https://github.com/org/repo", "https://ghe.example.com/org/repo"},
		{"https://github.com/org/repo", "https://github.com/org2/repo"},
		{"http://127.0.0.1:8089/acme/catalog", "http://127.0.0.1:8090/acme/catalog"},
		{"https://github.com/org/repo", "https://github.com/x/org/repo"},
	} {
		a, errA := ParseRepoURL(pair[0])
		b, errB := ParseRepoURL(pair[1])
		if errA != nil || errB != nil {
			t.Fatalf("%v %v", errA, errB)
		}
		if a == b {
			t.Errorf("%q and %q taken for the same repository %q", pair[0], pair[1], a)
		}
	}
}

func TestParseRepoURLRefuses(t *testing.T) {
	for _, in := range []string{"", "/tmp/up", "file:///tmp/up", "./up", "https://github.com/org",
		"https://github.com/", "github.com", "ftp://github.com/org/repo", "git@github.com:repo", "https:///org/repo"} {
		if id, err := ParseRepoURL(in); err == nil {
			t.Errorf("ParseRepoURL(%q) = %q, want an error", in, id)
		}
	}
	if _, err := ParseRepoURL("file:///tmp/up"); !errors.Is(err, ErrNotRemote) {
		t.Errorf("file URL: %v, want ErrNotRemote", err)
	}
}

func TestOwnerName(t *testing.T) {
	id, err := ParseRepoURL("git@ghe.example.com:Team/App.git")
	if err != nil {
		t.Fatal(err)
	}
	if o, n := id.OwnerName(); o != "team" || n != "app" {
		t.Errorf("OwnerName = %q %q", o, n)
	}
}

func TestNormalizeDir(t *testing.T) {
	for in, want := range map[string]string{
		"/app": "app", "app": "app", "app/": "app", "/app/": "app", "./app": "app", "//net//upf/": "net/upf",
		"": "", "/": "", ".": "", " /app ": "app",
	} {
		if got := NormalizeDir(in); got != want {
			t.Errorf("NormalizeDir(%q) = %q, want %q", in, got, want)
		}
	}
}
