package gitstore

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// location is where a remote repository lives, remotely and in the cache.
type location struct {
	// url is the remote URL, normalised (no trailing slash).
	url string
	// name is "OWNER/REPO", as passed to Options.Auth and logged.
	name string
	// path is the bare repository directory under Options.Dir.
	path string
}

// parseLocation maps a smart-HTTP remote URL to its cache location:
// http(s)://HOST[:PORT]/[PREFIX/]OWNER/REPO[.git] ->
// dir/HOST[_PORT]/[PREFIX/]OWNER/REPO.git.
func parseLocation(dir, raw string) (location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return location{}, fmt.Errorf("gitstore: remote URL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return location{}, fmt.Errorf("gitstore: remote URL %q: scheme must be http or https", raw)
	case u.User != nil:
		return location{}, fmt.Errorf("gitstore: remote URL %q: credentials must come from Options.Auth, not the URL", u.Redacted())
	case u.Host == "":
		return location{}, fmt.Errorf("gitstore: remote URL %q: no host", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return location{}, fmt.Errorf("gitstore: remote URL %q: query and fragment are not allowed", raw)
	}

	trimmed := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	segments := strings.Split(trimmed, "/")
	if len(segments) < 2 {
		return location{}, fmt.Errorf("gitstore: remote URL %q: path must end in OWNER/REPO", raw)
	}
	for _, seg := range segments {
		if !validSegment(seg) {
			return location{}, fmt.Errorf("gitstore: remote URL %q: invalid path segment %q", raw, seg)
		}
	}

	host := strings.NewReplacer(":", "_", "[", "", "]", "").Replace(strings.ToLower(u.Host))
	last := len(segments) - 1
	parts := append([]string{dir, host}, segments[:last]...)
	parts = append(parts, segments[last]+".git")

	u.Path = "/" + strings.Trim(u.Path, "/")
	return location{
		url:  u.String(),
		name: segments[last-1] + "/" + segments[last],
		path: filepath.Join(parts...),
	}, nil
}

// validSegment accepts the characters GitHub allows in owner and repository
// names, and refuses "." and ".." so a URL cannot escape Options.Dir.
func validSegment(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}
