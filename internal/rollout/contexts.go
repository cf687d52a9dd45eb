package rollout

import "strings"

// MatchContext says whether a commit status context (or check run name, or
// "deployment/<environment>") matches one of patterns: globs where "*"
// matches any text, "/" included, compared case-insensitively.
func MatchContext(patterns []string, context string) bool {
	context = strings.ToLower(context)
	for _, p := range patterns {
		if glob(strings.ToLower(p), context) {
			return true
		}
	}
	return false
}

// glob matches s against p, "*" matching any run of bytes: the greedy
// walk with one backtrack point, linear in practice.
func glob(p, s string) bool {
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && p[i] == s[j]:
			i++
			j++
		case star >= 0:
			mark++
			i, j = star+1, mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}
