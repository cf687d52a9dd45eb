package mdquote

import (
	"html"
	"strings"
	"unicode/utf8"
)

// zwsp (U+200B ZERO WIDTH SPACE) is put after "@", "#" and the like where
// GitHub would otherwise notify someone, link an issue or make a link: it
// is invisible, and GitHub's filters no longer match.
const zwsp = "\u200b"

// Code is s as one inline code span: a fence of backticks longer than any
// run of backticks in s, line breaks and control characters as spaces.
// GitHub neither notifies nor links inside code. Not for table cells
// (CodeCell is).
func Code(s string) string {
	s = line(s)
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	// One space each side is stripped by the reader when both are there:
	// pad when s itself starts or ends with a space or a backtick.
	if strings.Trim(s, " ") != "" && (s[0] == ' ' || s[0] == '`' || s[len(s)-1] == ' ' || s[len(s)-1] == '`') {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// CodeCell is Code for a table cell: GitHub splits a row at every
// unescaped "|", inside code spans too, and takes "\|" back as "|".
func CodeCell(s string) string {
	return strings.ReplaceAll(Code(s), "|", `\|`)
}

// Text is s as plain inline text on one line: ASCII punctuation that is
// markup backslash-escaped (no emphasis, link, HTML, entity, table pipe,
// heading, list, math or fence can start), runs of white space and line
// breaks as one space, mentions, references and URLs defused. Safe in
// table cells and link text too.
func Text(s string) string {
	s = defuse(strings.Join(strings.Fields(line(s)), " "))
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		if isPunct(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// HTML is s as text on one line inside porchbot's own HTML (a
// <details> summary): HTML-escaped, mentions, references and URLs
// defused. Markdown is not read there, so no backslash escapes.
func HTML(s string) string {
	return html.EscapeString(defuse(strings.Join(strings.Fields(line(s)), " ")))
}

// Fence is s as a fenced code block on lines of its own, ending with a
// line break: a fence of backticks longer than any run of backticks in s,
// so no line of s can close it. Put it at the start of a line, at the top
// level of the document (inside <details> after the blank line that ends
// the summary).
func Fence(s string) string {
	s = strings.TrimRight(clean(s, false), "\n")
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "\n" + s + "\n" + fence + "\n"
}

// Quiet defuses mentions (@user, @org/team) in markdown porchbot
// composed itself that may carry words of others (an error message that
// quotes its input). It changes nothing else: porchbot's own references
// (#12) and links stay live, code spans stay as they are (nothing is live
// in them), and text that could be markdown of its own goes through Code,
// Text or Fence instead.
func Quiet(s string) string {
	var b strings.Builder
	CodeSpans(s, func(raw string, code bool) {
		if code {
			b.WriteString(raw)
		} else {
			b.WriteString(unmention(raw))
		}
	})
	return b.String()
}

// unmention puts a zero-width space after every "@" before a letter or
// digit.
func unmention(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '@' && i+1 < len(s) && isAlnum(s[i+1]) {
			b.WriteString(zwsp)
		}
	}
	return b.String()
}

// defuse puts a zero-width space where GitHub would notify, reference or
// link: "@x", "#1", "GH-1", "://", "www.".
func defuse(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '@' && isAlnum(next),
			c == '#' && isDigit(next),
			c == '-' && isDigit(next) && i >= 2 && strings.EqualFold(s[i-2:i], "gh"),
			c == ':' && strings.HasPrefix(s[i+1:], "//"),
			next == '.' && i >= 2 && strings.EqualFold(s[i-2:i+1], "www"):
			b.WriteString(zwsp)
		}
	}
	return b.String()
}

// line is clean(s) on one line: line breaks and tabs as spaces.
func line(s string) string { return clean(s, true) }

// clean replaces what no markdown reader should get raw: invalid UTF-8,
// NUL and other control characters, and the bidirectional overrides that
// reorder what a reader sees, by U+FFFD; CR and CRLF become LF; inline,
// line breaks and tabs become spaces.
func clean(s string, inline bool) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			if inline {
				r = ' '
			} else if r == '\r' {
				r = '\n'
			}
		case r == utf8.RuneError && size == 1, r < 0x20, r >= 0x7f && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// isPunct is the ASCII punctuation Text escapes: all that CommonMark
// and GitHub read as markup somewhere in a line (every one may be
// backslash-escaped), less what never is (" % ' , / : ; ? @ ^; mentions,
// references and URLs are defused apart).
func isPunct(c byte) bool {
	return strings.IndexByte("!#$&()*+-.<=>[\\]_`{|}~", c) >= 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Cell is markdown porchbot composed (with Code, not CodeCell, spans) as
// one table cell: every "|" escaped, code spans included (GitHub splits
// a row before it reads code), line breaks as spaces.
func Cell(md string) string {
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(md)
}
