package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// locate maps a remote URL to its cache location: smart HTTP(S) always;
// file://, local paths and SSH only with Options.AllowLocalAndSSH.
func (s *Store) locate(raw string) (location, error) {
	if s.opts.AllowLocalAndSSH && !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return parseLocalOrSSHLocation(s.opts.Dir, raw)
	}
	return parseLocation(s.opts.Dir, raw)
}

// parseLocalOrSSHLocation accepts the remotes kpt accepts besides HTTP(S):
// file:///PATH, an absolute local path (a work tree or a bare repository),
// ssh://[USER@]HOST[:PORT]/PATH and scp-like USER@HOST:PATH. Their caches
// live under Dir/_local and Dir/_ssh, named by a digest of the URL (paths
// of any shape cannot escape Dir).
func parseLocalOrSSHLocation(dir, raw string) (location, error) {
	var kind, remote, repoPath string
	switch {
	case strings.HasPrefix(raw, "file://"):
		u, err := url.Parse(raw)
		if err != nil {
			return location{}, fmt.Errorf("gitstore: remote URL %q: %w", raw, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return location{}, fmt.Errorf("gitstore: remote URL %q: file URLs name a local path (file:///PATH)", raw)
		}
		kind, remote, repoPath = "_local", "file://"+path.Clean("/"+u.Path), u.Path
	case filepath.IsAbs(raw):
		p := filepath.ToSlash(filepath.Clean(raw))
		kind, remote, repoPath = "_local", "file://"+p, p
	case strings.HasPrefix(raw, "ssh://"):
		u, err := url.Parse(raw)
		if err != nil {
			return location{}, fmt.Errorf("gitstore: remote URL %q: %w", raw, err)
		}
		if _, hasPassword := u.User.Password(); hasPassword {
			return location{}, fmt.Errorf("gitstore: remote URL %q: credentials must not be in the URL", u.Redacted())
		}
		if u.Host == "" {
			return location{}, fmt.Errorf("gitstore: remote URL %q: no host", raw)
		}
		kind, remote, repoPath = "_ssh", raw, u.Path
	default:
		host, p, ok := strings.Cut(raw, ":")
		if !ok || host == "" || p == "" || strings.Contains(host, "/") {
			return location{}, fmt.Errorf("gitstore: remote URL %q: not an http(s), ssh or file URL, nor an absolute path", raw)
		}
		kind, remote, repoPath = "_ssh", raw, p
	}
	segs := strings.Split(strings.TrimSuffix(strings.Trim(repoPath, "/"), ".git"), "/")
	name := segs[len(segs)-1]
	if len(segs) > 1 {
		name = segs[len(segs)-2] + "/" + name
	}
	sum := sha256.Sum256([]byte(remote))
	return location{url: remote, name: name, path: filepath.Join(dir, kind, hex.EncodeToString(sum[:12])+".git")}, nil
}
