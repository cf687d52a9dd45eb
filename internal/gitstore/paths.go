package gitstore

import (
	"fmt"
	"path"
	"strings"
)

// cleanDir normalises a directory argument: "", "." and "/" mean the root
// (returned as ""); anything else must be a clean relative path.
func cleanDir(dir string) (string, error) {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" || dir == "." {
		return "", nil
	}
	if err := validRelPath(dir); err != nil {
		return "", fmt.Errorf("directory %q: %w", dir, err)
	}
	return dir, nil
}

// validRelPath accepts the slash-separated relative paths git can store and
// GitHub accepts: no empty, "." or ".." segment, no ".git" segment (in any
// case), no NUL, no leading or doubled slash.
func validRelPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("absolute path")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("NUL in path")
	case path.Clean(p) != p:
		return fmt.Errorf("path is not clean")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, ".git") {
			return fmt.Errorf("forbidden path segment %q", seg)
		}
	}
	return nil
}

// joinPath joins a directory ("" for the root) and a relative path.
func joinPath(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}
