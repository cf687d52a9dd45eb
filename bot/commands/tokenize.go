package commands

import (
	"errors"
	"strings"
	"unicode"
)

// tokenize splits a command line as a shell does, without expansions:
// words are separated by white space; "double quotes" group words and
// take \" and \\ as escapes; 'single quotes' group words literally; a
// backslash outside quotes takes the next character literally. Typographic
// double quotes (“ ”), which editors put in for ", count as ". An
// unterminated quote is an error.
func tokenize(line string) ([]string, error) {
	var (
		out     []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '"' or '\''
		escaped bool
	)
	flush := func() {
		if inWord {
			out = append(out, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for _, r := range line {
		if r == '“' || r == '”' {
			r = '"'
		}
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' {
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
				escaped = true
			case '"':
				quote = 0
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			flush()
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	switch {
	case quote == '"':
		return nil, errors.New(`a double quote (") is not closed`)
	case quote == '\'':
		return nil, errors.New(`a single quote (') is not closed; quote text with an apostrophe in double quotes`)
	case escaped:
		return nil, errors.New("the line ends with a backslash")
	}
	flush()
	return out, nil
}
