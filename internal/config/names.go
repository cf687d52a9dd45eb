package config

import (
	"fmt"
	"strings"
)

// GitHub and Kubernetes name rules used by the checks.

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// loginProblem checks a GitHub user or organisation login: 1–39 letters,
// digits or hyphens, not starting or ending with a hyphen. A "[bot]" suffix
// (GitHub App accounts) is accepted when bot is set.
func loginProblem(login string, bot bool) string {
	if bot {
		login = strings.TrimSuffix(login, "[bot]")
	}
	if login == "" || len(login) > 39 {
		return "a GitHub login has 1 to 39 characters"
	}
	for _, r := range login {
		if !isAlnum(r) && r != '-' {
			return "a GitHub login has only letters, digits and hyphens"
		}
	}
	if login[0] == '-' || login[len(login)-1] == '-' {
		return "a GitHub login does not start or end with a hyphen"
	}
	return ""
}

// parseUserOrTeam reads "login" or "@org/team-slug".
func parseUserOrTeam(s string) (UserOrTeam, string) {
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		org, team, found := strings.Cut(rest, "/")
		if !found {
			return UserOrTeam{}, fmt.Sprintf("%q: a team is written @org/team", s)
		}
		if p := loginProblem(org, false); p != "" {
			return UserOrTeam{}, fmt.Sprintf("%q: organisation %q: %s", s, org, p)
		}
		if team == "" || len(team) > 100 {
			return UserOrTeam{}, fmt.Sprintf("%q: the team slug is missing or too long", s)
		}
		for _, r := range team {
			if !isAlnum(r) && r != '-' && r != '_' && r != '.' {
				return UserOrTeam{}, fmt.Sprintf("%q: a team slug has only letters, digits, '-', '_' and '.'", s)
			}
		}
		return UserOrTeam{Org: org, Team: team}, ""
	}
	if p := loginProblem(s, true); p != "" {
		return UserOrTeam{}, fmt.Sprintf("%q is not a GitHub login or @org/team: %s", s, p)
	}
	return UserOrTeam{Login: s}, ""
}

// repositoryProblem checks "owner/name".
func repositoryProblem(s string) string {
	owner, name, found := strings.Cut(s, "/")
	if !found || strings.Contains(name, "/") {
		return fmt.Sprintf("%q: a repository is written owner/name", s)
	}
	if p := loginProblem(owner, false); p != "" {
		return fmt.Sprintf("%q: owner %q: %s", s, owner, p)
	}
	if name == "" || len(name) > 100 || name == "." || name == ".." {
		return fmt.Sprintf("%q: the repository name is missing or invalid", s)
	}
	for _, r := range name {
		if !isAlnum(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Sprintf("%q: a repository name has only letters, digits, '-', '_' and '.'", s)
		}
	}
	return ""
}

// topicProblem checks a GitHub topic: lowercase letters, digits and
// hyphens, starting with a letter or digit, at most 50 characters.
func topicProblem(t string) string {
	if t == "" || len(t) > 50 {
		return "a topic has 1 to 50 characters"
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return "a topic has only lowercase letters, digits and hyphens"
		}
	}
	if t[0] == '-' {
		return "a topic starts with a letter or digit"
	}
	return ""
}

// dnsLabelProblem checks an RFC 1123 label (a Kubernetes namespace).
func dnsLabelProblem(s string) string {
	if s == "" || len(s) > 63 {
		return "a namespace has 1 to 63 characters"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return "a namespace has only lowercase letters, digits and '-'"
		}
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return "a namespace starts and ends with a letter or digit"
	}
	return ""
}

// qualifiedNameProblem checks a Kubernetes label or annotation key:
// [prefix/]name, name 1–63 alphanumerics, '-', '_' or '.' starting and
// ending alphanumeric, prefix a DNS subdomain of at most 253 characters.
func qualifiedNameProblem(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	if hasPrefix {
		if prefix == "" || len(prefix) > 253 {
			return "the prefix before / must be a DNS subdomain of 1 to 253 characters"
		}
		for _, part := range strings.Split(prefix, ".") {
			if dnsLabelProblem(part) != "" {
				return "the prefix before / must be a lowercase DNS subdomain"
			}
		}
	}
	if p := labelValueProblem(name); p != "" || name == "" {
		return "the name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	}
	return ""
}

// labelValueProblem checks a Kubernetes label value: empty, or up to 63
// alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
func labelValueProblem(v string) string {
	if v == "" {
		return ""
	}
	if len(v) > 63 {
		return "a label value has at most 63 characters"
	}
	for _, r := range v {
		if !isAlnum(r) && r != '-' && r != '_' && r != '.' {
			return "a label value has only letters, digits, '-', '_' and '.'"
		}
	}
	if !isAlnum(rune(v[0])) || !isAlnum(rune(v[len(v)-1])) {
		return "a label value starts and ends with a letter or digit"
	}
	return ""
}
