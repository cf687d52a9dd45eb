package downstreams

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
)

// RepoID is a git repository's identity, whatever URL form names it:
// https with or without ".git", git@host:org/repo, ssh://git@host/org/repo,
// a GitHub Enterprise host, the local forge's http://127.0.0.1:PORT/...
// URLs. Host is lower case, without a default port (and without the port
// of an SSH URL: the SSH port of a GitHub host is not its web port); Path is
// the repository path without ".git" or slashes at either end, lower case
// (GitHub owner and repository names are case-insensitive).
type RepoID struct {
	Host string
	Path string
}

// ErrNotRemote is wrapped by ParseRepoURL for a local repository (a path
// or file:// URL): it never names a repository on a GitHub host.
var ErrNotRemote = errors.New("a local path, not a remote repository")

// String is "host/path", the registry's key.
func (id RepoID) String() string { return id.Host + "/" + id.Path }

// OwnerName splits Path into its last two segments ("org", "repo").
func (id RepoID) OwnerName() (owner, name string) {
	segs := strings.Split(id.Path, "/")
	if len(segs) < 2 {
		return "", id.Path
	}
	return segs[len(segs)-2], segs[len(segs)-1]
}

// ParseRepoURL returns the identity of the repository a Kptfile's
// upstream.git.repo names.
func ParseRepoURL(raw string) (RepoID, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return RepoID{}, errors.New("empty repository URL")
	case strings.HasPrefix(raw, "/"), strings.HasPrefix(raw, "file:"), strings.HasPrefix(raw, "."):
		return RepoID{}, fmt.Errorf("repository %q: %w", raw, ErrNotRemote)
	}
	if !strings.Contains(raw, "://") {
		// scp-like: [user@]host:path
		host, p, ok := strings.Cut(raw, ":")
		if !ok || strings.Contains(host, "/") {
			return RepoID{}, fmt.Errorf("repository %q: not a git URL (https://HOST/ORG/REPO or git@HOST:ORG/REPO)", raw)
		}
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
		return newRepoID(raw, host, p)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return RepoID{}, fmt.Errorf("repository %q: %w", raw, err)
	}
	host := u.Hostname()
	switch port := u.Port(); {
	case port == "":
	case u.Scheme == "ssh" || u.Scheme == "git+ssh":
	case u.Scheme == "https" && port == "443", u.Scheme == "http" && port == "80":
	default:
		host = net.JoinHostPort(host, port)
	}
	switch u.Scheme {
	case "https", "http", "ssh", "git+ssh", "git":
	default:
		return RepoID{}, fmt.Errorf("repository %q: unsupported scheme %q", raw, u.Scheme)
	}
	return newRepoID(raw, host, u.Path)
}

func newRepoID(raw, host, p string) (RepoID, error) {
	p = strings.Trim(path.Clean("/"+p), "/")
	p = strings.TrimSuffix(p, ".git")
	if host == "" || !strings.Contains(p, "/") || strings.HasSuffix(p, "/") {
		return RepoID{}, fmt.Errorf("repository %q: want HOST and ORG/REPO", raw)
	}
	return RepoID{Host: strings.ToLower(host), Path: strings.ToLower(p)}, nil
}

// NormalizeDir is a package directory as compared across Kptfiles:
// "/network/upf/", "network/upf" and "./network/upf" are all "network/upf";
// the repository root is "".
func NormalizeDir(dir string) string {
	return strings.Trim(path.Clean("/"+strings.TrimSpace(dir)), "/")
}
