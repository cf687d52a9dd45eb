package github

import (
	"strings"
)

// Endpoint returns a low-cardinality template of a GitHub request path, fit
// for a metric label: owner and repository names, numbers, SHAs, refs and
// other names are replaced by placeholders, and the GHES /api/v3 (or
// /api/uploads) prefix is dropped so github.com, GHES and the local forge
// report the same templates. For example
//
//	/api/v3/repos/acme/widgets/pulls/12/reviews → /repos/{owner}/{repo}/pulls/{number}/reviews
//	/repos/acme/widgets/git/refs/heads/main     → /repos/{owner}/{repo}/git/refs/{ref}
//	/acme/widgets.git/info/refs                 → /{owner}/{repo}.git/info/refs
//
// path is a URL path, ideally the escaped form (url.URL.EscapedPath) so that
// a branch name containing an escaped slash stays one segment. A query string,
// if present, is ignored.
func Endpoint(path string) string {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	path = trimPathPrefix(path, "/api/v3")
	path = trimPathPrefix(path, "/api/uploads")
	segs := splitPath(path)
	if len(segs) == 0 {
		return "/"
	}

	// git smart HTTP: /{owner}/{repo}.git/...
	if len(segs) >= 2 && strings.HasSuffix(segs[1], ".git") {
		out := []string{"{owner}", "{repo}.git"}
		for _, s := range segs[2:] {
			out = append(out, genericSegment(s))
		}
		return "/" + strings.Join(out, "/")
	}

	out := make([]string, 0, len(segs))
	i := 0
	switch segs[0] {
	case "repos":
		out = append(out, "repos")
		if len(segs) > 1 {
			out = append(out, "{owner}")
		}
		if len(segs) > 2 {
			out = append(out, "{repo}")
		}
		i = 3
	case "users", "orgs", "enterprises":
		out = append(out, segs[0])
		if len(segs) > 1 {
			out = append(out, map[string]string{
				"users": "{user}", "orgs": "{org}", "enterprises": "{enterprise}",
			}[segs[0]])
		}
		i = 2
	}

	for ; i < len(segs); i++ {
		s := segs[i]
		// Only a static word selects a rule: a repository named "labels"
		// has already become {repo} and so does not.
		prev := ""
		if len(out) > 0 {
			prev = out[len(out)-1]
		}
		if ph, rest := placeholderAfter(prev, s); ph != "" {
			out = append(out, ph)
			if rest {
				break
			}
			// A ref or tag name may hold slashes (drafts/basens/w1,
			// basens/v1), sent unescaped: it runs up to the endpoint's
			// last word, if the path has one.
			if ph == "{ref}" || ph == "{tag}" {
				if j := refEnd(segs, i); j > i {
					if j < len(segs) {
						out = append(out, genericSegment(segs[j]))
					}
					break
				}
			}
			continue
		}
		out = append(out, genericSegment(s))
	}
	return "/" + strings.Join(out, "/")
}

// placeholderAfter names the parameter that follows the static segment prev,
// if prev is one that takes a free-form parameter. rest reports that the
// parameter swallows the remainder of the path (refs and file paths contain
// slashes).
func placeholderAfter(prev, s string) (ph string, rest bool) {
	switch prev {
	case "refs", "ref", "matching-refs":
		return "{ref}", true
	case "contents", "readme":
		return "{path}", true
	case "compare":
		return "{basehead}", true
	case "commits", "statuses", "trees":
		if isHex(s, 7) && !isDigits(s) {
			return "{sha}", false
		}
		return "{ref}", false
	case "blobs":
		return "{sha}", false
	case "tags":
		if isHex(s, 40) {
			return "{sha}", false
		}
		return "{tag}", false
	case "branches":
		return "{branch}", false
	case "labels":
		return "{name}", false
	case "collaborators", "assignees", "members", "memberships", "followers", "following":
		return "{user}", false
	case "teams":
		if isDigits(s) {
			return "{number}", false
		}
		return "{team}", false
	case "environments", "secrets", "variables":
		return "{name}", false
	}
	return "", false
}

// refSuffixes are the words that may follow a ref in GitHub's REST paths
// (/commits/{ref}/check-runs and the like).
var refSuffixes = map[string]bool{"check-runs": true, "check-suites": true, "status": true, "statuses": true,
	"comments": true, "pulls": true, "branches-where-head": true}

// refEnd is where the ref that starts at segs[i] ends: the index of the
// path's last segment when that is an endpoint word after a ref of more
// than one segment, len(segs) when the ref is the rest of the path and
// holds more than one segment, i when the ref is segs[i] alone.
func refEnd(segs []string, i int) int {
	last := len(segs) - 1
	switch {
	case last > i+1 && refSuffixes[segs[last]]:
		return last
	case last > i && !refSuffixes[segs[last]]:
		return len(segs)
	}
	return i
}

// genericSegment keeps static path words and replaces anything that looks
// like data: digits become {number}, full SHAs {sha}, and any other segment
// that is not a plain lower-case word {param}, which bounds cardinality for
// paths no rule knows.
func genericSegment(s string) string {
	switch {
	case isDigits(s):
		return "{number}"
	case (len(s) == 40 || len(s) == 64) && isHex(s, len(s)):
		return "{sha}"
	case isStaticWord(s):
		return s
	default:
		return "{param}"
	}
}

func trimPathPrefix(path, prefix string) string {
	if path == prefix {
		return "/"
	}
	if strings.HasPrefix(path, prefix+"/") {
		return path[len(prefix):]
	}
	return path
}

func splitPath(path string) []string {
	var segs []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isHex reports whether s is at least minLen hex digits and at most 64.
func isHex(s string, minLen int) bool {
	if len(s) < minLen || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isStaticWord matches the shape of GitHub's fixed path words: lower-case
// letters, digits, '-' and '_', starting with a letter.
func isStaticWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
