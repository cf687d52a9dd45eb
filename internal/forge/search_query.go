package forge

import (
	"strings"
)

// issueQuery is a parsed GitHub issue search query: the qualifiers
// clients commonly use, and free text. Domain only: no HTTP here.
type issueQuery struct {
	repos      []string // lower-cased owner/name; any of them
	owners     []string // org: / user:; any of them
	kind       string   // "", "pr", "issue"
	state      string   // "", "open", "closed"
	merged     *bool
	draft      *bool
	labels     [][]string // each qualifier ANDed; its comma list ORed
	notLabels  []string
	noLabel    bool
	noAssignee bool
	author     string
	assignee   string
	head, base string
	in         map[string]bool // title, body; both when empty
	text       []string        // lower-cased terms, all required
}

// maxSearchQuery is GitHub's limit on q.
const maxSearchQuery = 256

// searchTokens splits a query on spaces, keeping double-quoted runs
// (label:"porch/proposed" or "two words") together without the quotes.
func searchTokens(q string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, c := range q {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ' ' || c == '\t' || c == '\n' || c == '+'):
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	flush()
	return out
}

// parseIssueQuery reads q. Qualifiers it does not know are read as text,
// as GitHub reads a word with a colon it does not recognise.
func parseIssueQuery(q string) issueQuery {
	var iq issueQuery
	yes, no := true, false
	for _, tok := range searchTokens(q) {
		neg := strings.HasPrefix(tok, "-")
		key, val, isQual := strings.Cut(strings.TrimPrefix(tok, "-"), ":")
		key = strings.ToLower(key)
		lval := strings.ToLower(val)
		known := isQual && val != ""
		if known {
			switch {
			case key == "repo":
				iq.repos = append(iq.repos, lval)
			case key == "org" || key == "user":
				iq.owners = append(iq.owners, lval)
			case (key == "is" || key == "type") && (lval == "pr" || lval == "issue"):
				iq.kind = lval
			case (key == "is" || key == "state") && (lval == "open" || lval == "closed"):
				iq.state = lval
			case key == "is" && (lval == "merged" || lval == "unmerged"):
				iq.merged = map[bool]*bool{true: &yes, false: &no}[lval == "merged"]
			case key == "draft" && (lval == "true" || lval == "false"):
				iq.draft = map[bool]*bool{true: &yes, false: &no}[lval == "true"]
			case key == "label" && neg:
				iq.notLabels = append(iq.notLabels, strings.Split(lval, ",")...)
			case key == "label":
				iq.labels = append(iq.labels, strings.Split(lval, ","))
			case key == "no" && lval == "label":
				iq.noLabel = true
			case key == "no" && lval == "assignee":
				iq.noAssignee = true
			case key == "author":
				iq.author = lval
			case key == "assignee":
				iq.assignee = lval
			case key == "head":
				iq.head = val
			case key == "base":
				iq.base = val
			case key == "in":
				if iq.in == nil {
					iq.in = map[string]bool{}
				}
				for _, where := range strings.Split(lval, ",") {
					iq.in[where] = true
				}
			default:
				known = false
			}
		}
		if !known {
			iq.text = append(iq.text, strings.ToLower(tok))
		}
	}
	return iq
}

// matchesRepo says whether a repository is in the query's scope.
func (iq issueQuery) matchesRepo(fullName, owner string) bool {
	if len(iq.repos) > 0 && !containsFold(iq.repos, fullName) {
		return false
	}
	return len(iq.owners) == 0 || containsFold(iq.owners, owner)
}

// matches says whether an issue (or pull request) view satisfies the query.
func (iq issueQuery) matches(v issueView) bool {
	is := v.Issue
	switch {
	case iq.kind == "pr" && v.Pull == nil, iq.kind == "issue" && v.Pull != nil,
		iq.state != "" && is.State != iq.state,
		iq.merged != nil && (v.Pull == nil || v.Pull.Merged != *iq.merged),
		iq.draft != nil && (v.Pull == nil || v.Pull.Draft != *iq.draft),
		iq.noLabel && len(is.Labels) > 0, iq.noAssignee && len(is.Assignees) > 0,
		iq.author != "" && !strings.EqualFold(is.User.Login, iq.author),
		iq.assignee != "" && !containsFold(is.Assignees, iq.assignee),
		iq.head != "" && (v.Pull == nil || v.Pull.Head != iq.head),
		iq.base != "" && (v.Pull == nil || v.Pull.Base != iq.base):
		return false
	}
	for _, anyOf := range iq.labels {
		found := false
		for _, l := range anyOf {
			found = found || containsFold(is.Labels, l)
		}
		if !found {
			return false
		}
	}
	for _, l := range iq.notLabels {
		if containsFold(is.Labels, l) {
			return false
		}
	}
	var hay []string
	if len(iq.in) == 0 || iq.in["title"] {
		hay = append(hay, strings.ToLower(is.Title))
	}
	if len(iq.in) == 0 || iq.in["body"] {
		hay = append(hay, strings.ToLower(is.Body))
	}
	for _, term := range iq.text {
		found := false
		for _, h := range hay {
			found = found || strings.Contains(h, term)
		}
		if !found {
			return false
		}
	}
	return true
}
