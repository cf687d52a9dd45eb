// Package shellwords is porchbot's one shell-word splitter: /porch command
// lines and Kptfile exec lines are split by it, as a shell splits words,
// without any expansion.
package shellwords

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options are the differences between the lines split.
type Options struct {
	// Comments: a # at the start of a word starts a comment that runs to
	// the end of the line (exec lines).
	Comments bool
	// TypographicQuotes: “ and ”, which editors put in for ", count as "
	// (comment lines).
	TypographicQuotes bool
	// Shlex: split as kpt splits a Kptfile's exec lines (google/shlex):
	// inside double quotes a backslash escapes any character (it is
	// dropped), and only space, tab, CR and LF separate words.
	Shlex bool
}

// SyntaxError is a line that cannot be split, with where: Offset is the
// byte offset in the line of the quote left open or of the trailing
// backslash, Column the same as a count of characters from 1.
type SyntaxError struct {
	Msg    string
	Offset int
	Column int
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s (at character %d)", e.Msg, e.Column) }

// Split splits s into words: white space separates them; 'single quotes'
// group characters literally; "double quotes" group them and take \" and
// \\ as escapes (a backslash before any other character stays); a
// backslash outside quotes takes the next character literally. An open
// quote or a trailing backslash is a *SyntaxError.
func Split(s string, opt Options) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '"' or '\''
		escaped bool
		quoteAt int // offset of the open quote
		escAt   int // offset of the pending backslash
	)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		at := i
		i += size
		if opt.TypographicQuotes && (r == '“' || r == '”') {
			r = '"'
		}
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' && !opt.Shlex {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '\\':
				escaped, escAt = true, at
			case '"':
				quote = 0
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord, escAt = true, true, at
		case r == '"' || r == '\'':
			quote, inWord, quoteAt = r, true, at
		case opt.Shlex && (r == ' ' || r == '\t' || r == '\r' || r == '\n'), !opt.Shlex && unicode.IsSpace(r):
			flush()
		case opt.Comments && r == '#' && !inWord:
			if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				i = len(s)
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	errAt := func(at int, msg string) error {
		return &SyntaxError{Msg: msg, Offset: at, Column: utf8.RuneCountInString(s[:at]) + 1}
	}
	switch {
	case quote == '"':
		return nil, errAt(quoteAt, `a double quote (") is not closed`)
	case quote == '\'':
		return nil, errAt(quoteAt, `a single quote (') is not closed; quote text with an apostrophe in double quotes`)
	case escaped:
		return nil, errAt(escAt, "the line ends with a backslash")
	}
	flush()
	return words, nil
}
