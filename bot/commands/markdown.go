package commands

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// codeSpan renders s as inline code, with a fence longer than any run of
// backticks in it (so user input cannot break out of it).
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mention matches "@login" as GitHub would notify it.
var mention = regexp.MustCompile(`(^|[^\w` + "`" + `])@([A-Za-z0-9])`)

// quiet keeps text written by others (error messages that quote input)
// from notifying anyone: "@x" becomes "@\u200bx".
func quiet(s string) string { return mention.ReplaceAllString(s, "$1@\u200b$2") }

// links builds the URLs of a repository's web pages.
type links struct {
	web, owner, repo string
}

func (l links) base() string {
	return strings.TrimSuffix(l.web, "/") + "/" + url.PathEscape(l.owner) + "/" + url.PathEscape(l.repo)
}

// tree is <web>/<owner>/<repo>/tree/<ref>.
func (l links) tree(ref string) string { return l.base() + "/tree/" + escapeRef(ref) }

func (l links) pull(n int) string { return l.base() + "/pull/" + strconv.Itoa(n) }

func (l links) commit(sha string) string { return l.base() + "/commit/" + sha }

// escapeRef escapes each segment of a ref, keeping its slashes.
func escapeRef(ref string) string {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// mdLink is [text](url) with text as code.
func mdCodeLink(text, u string) string { return "[" + codeSpan(text) + "](" + u + ")" }

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
