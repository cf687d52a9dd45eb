package mdquote

import "unicode/utf8"

// Truncate cuts s to at most maxBytes bytes, mark included, on a rune
// boundary, and ends it with mark when it cut. Cut raw text, then quote
// it: the cut never splits a rune or an escape.
func Truncate(s string, maxBytes int, mark string) string {
	if len(s) <= maxBytes {
		return s
	}
	keep := max(0, maxBytes-len(mark))
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + mark
}

// TruncateRunes cuts s to at most n runes, mark included, and ends it with
// mark when it cut.
func TruncateRunes(s string, n int, mark string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	keep := max(0, n-utf8.RuneCountInString(mark))
	i := 0
	for pos := range s {
		if i == keep {
			return s[:pos] + mark
		}
		i++
	}
	return s + mark
}
