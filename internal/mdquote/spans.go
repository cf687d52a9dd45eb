package mdquote

import "strings"

// CodeSpans reads inline code in markdown as CommonMark does and calls
// each, in order, for every run of md: text outside code (code false), or
// one code span as written, its backticks included (code true). A span
// opened by a run of n backticks ends at the next run of exactly n; a run
// that nothing closes is text. The runs put together are md.
func CodeSpans(md string, each func(raw string, code bool)) {
	for len(md) > 0 {
		i := strings.IndexByte(md, '`')
		if i < 0 {
			each(md, false)
			return
		}
		if i > 0 {
			each(md[:i], false)
		}
		n := 1
		for i+n < len(md) && md[i+n] == '`' {
			n++
		}
		end := closingRun(md[i+n:], n)
		if end < 0 {
			each(md[i:i+n], false)
			md = md[i+n:]
			continue
		}
		each(md[i:i+n+end+n], true)
		md = md[i+n+end+n:]
	}
}

// CodeContent is what a reader shows of a code span (as CodeSpans gives
// it): the text inside its backticks, line breaks as spaces, and one
// space stripped from each side when both sides have one and the text is
// not all spaces.
func CodeContent(span string) string {
	n := len(span) - len(strings.TrimLeft(span, "`"))
	s := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(span[n : len(span)-n])
	if len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = s[1 : len(s)-1]
	}
	return s
}

// closingRun is where the first run of exactly n backticks starts in s
// (-1 when none): the end of a code span opened by n backticks.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}
