package commands

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/shellwords"
	"github.com/porchbot/porchbot/internal/suggest"
	"github.com/porchbot/porchbot/internal/words"
)

// Bounds of Parse.
const (
	// MaxCommands is the number of commands run per comment; later ones
	// are reported, not run.
	MaxCommands = 10
	// MaxLineLength bounds a command line, in bytes.
	MaxLineLength = 2048
	// Prefix starts a command line (case-insensitive).
	Prefix = "/porch"
	// MaxSuggestDistance is the largest edit distance a "did you mean"
	// suggestion of a verb, flag or value may be from what was typed.
	MaxSuggestDistance = 2
)

// Command is one parsed /porch line.
type Command struct {
	// Line is the line's number in the comment, from 1.
	Line int
	// Text is the line as written, without surrounding space (cut to 200
	// bytes when the line was refused as too long).
	Text string
	// Verb is the verb, lower-case ("help" for a bare "/porch").
	Verb  string
	Args  []string
	Flags map[string]string
	// Err is set when the line could not be parsed; the command is then
	// not run and Err.Message is shown to the commenter.
	Err *ParseError
}

// Flag is the value of --name ("" when not given).
func (c Command) Flag(name string) string { return c.Flags[name] }

// HasFlag reports whether --name was given (possibly empty: --description "").
func (c Command) HasFlag(name string) bool {
	_, ok := c.Flags[name]
	return ok
}

// Arg is the i-th positional argument ("" when absent).
func (c Command) Arg(i int) string {
	if i < len(c.Args) {
		return c.Args[i]
	}
	return ""
}

// ParseError is a command line that cannot run, with the message for the
// commenter and where the problem is: Column counts characters from 1 in
// the line as written (Command.Text), Arg the words after the verb from 1
// (flags and their values included). At least one of them is set.
type ParseError struct {
	Message     string
	Column, Arg int
	// Unknown is the verb that was not recognised, if that is the problem;
	// Suggestions are the verbs it is close to.
	Unknown     string
	Suggestions []string
	// ShowHelp asks the reply to include the command table.
	ShowHelp bool
}

func (e *ParseError) Error() string { return e.Message }

// Parse reads the commands of a comment body: every line that starts with
// /porch (after optional leading white space, followed by white space or
// the end of the line), except inside fenced code blocks (``` or ~~~),
// HTML comments and quotes (lines starting with >). One command per line.
// At most MaxCommands are returned as parsed; when there are more, one
// last Command carries a ParseError saying how many were not run.
func Parse(body string) []Command {
	var (
		out   []Command
		extra int
		// firstExtra is the line of the first command not run.
		firstExtra int
		fence      string // the opening fence while inside a code block
		comment    bool
	)
	for i, raw := range strings.Split(body, "\n") {
		line := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		switch {
		case fence != "":
			if closesFence(trimmed, fence) {
				fence = ""
			}
			continue
		case comment:
			if strings.Contains(trimmed, "-->") {
				comment = false
			}
			continue
		}
		if f, ok := opensFence(trimmed); ok {
			fence = f
			continue
		}
		if rest, ok := strings.CutPrefix(trimmed, "<!--"); ok {
			comment = !strings.Contains(rest, "-->")
			continue
		}
		if strings.HasPrefix(trimmed, ">") {
			continue
		}
		rest, ok := cutCommandPrefix(trimmed)
		if !ok {
			continue
		}
		if len(out) >= MaxCommands {
			if extra == 0 {
				firstExtra = i + 1
			}
			extra++
			continue
		}
		out = append(out, parseLine(i+1, strings.TrimSpace(line), rest))
	}
	if extra > 0 {
		out = append(out, Command{Line: firstExtra, Text: fmt.Sprintf("(%d more)", extra), Err: &ParseError{Column: 1,
			Message: fmt.Sprintf("only the first %d commands of a comment are run; %d more %s not run (from line %d): post them in another comment",
				MaxCommands, extra, words.Plural(extra, "was", "were"), firstExtra)}})
	}
	return out
}

// cutCommandPrefix returns what follows "/porch" on a command line.
func cutCommandPrefix(trimmed string) (string, bool) {
	if len(trimmed) < len(Prefix) || !strings.EqualFold(trimmed[:len(Prefix)], Prefix) {
		return "", false
	}
	rest := trimmed[len(Prefix):]
	if rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		if !unicode.IsSpace(r) {
			return "", false // "/porchbot", "/porch-x": not ours
		}
	}
	return rest, true
}

// opensFence recognises a code fence: three or more backticks (with no
// backtick after them: that is inline code) or tildes.
func opensFence(trimmed string) (string, bool) {
	if trimmed == "" || trimmed[0] != '`' && trimmed[0] != '~' {
		return "", false
	}
	n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
	if n < 3 || trimmed[0] == '`' && strings.Contains(trimmed[n:], "`") {
		return "", false
	}
	return trimmed[:n], true
}

// closesFence: the same character, at least as many, nothing else.
func closesFence(trimmed, fence string) bool {
	s := strings.TrimRightFunc(trimmed, unicode.IsSpace)
	n := len(s) - len(strings.TrimLeft(s, fence[:1]))
	return n >= len(fence) && n == len(s)
}

// parseLine parses one command line; rest is what follows /porch.
func parseLine(num int, text, rest string) Command {
	c := Command{Line: num, Text: text}
	if len(text) > MaxLineLength {
		c.Text = mdquote.Truncate(text, 200+len("…"), "…")
		c.Err = &ParseError{Column: utf8.RuneCountInString(text[:MaxLineLength]) + 1,
			Message: fmt.Sprintf("this line is %d bytes long; a command line has at most %d", len(text), MaxLineLength)}
		return c
	}
	rest = strings.TrimSpace(rest)
	verb, after := rest, ""
	if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
		verb, after = rest[:i], rest[i:]
	}
	c.Verb = strings.ToLower(verb)
	if c.Verb == "" {
		c.Verb = "help"
	}
	// column is where the byte offset at in text is, in characters from 1.
	column := func(at int) int { return utf8.RuneCountInString(text[:at]) + 1 }
	afterAt := len(text) - len(after) // after is a suffix of text
	v, ok := LookupVerb(c.Verb)
	if !ok {
		c.Err = &ParseError{Unknown: verb, Suggestions: suggest.Nearest(verb, VerbNames(), MaxSuggestDistance), ShowHelp: true,
			Column: column(afterAt - len(verb)), Message: fmt.Sprintf("unknown command %s", mdquote.Code(Prefix+" "+verb))}
		return c
	}
	if v.Text {
		if reason := unquoteText(strings.TrimSpace(after)); reason != "" {
			c.Args = []string{reason}
		}
		return c
	}
	toks, err := shellwords.Split(after, shellwords.Options{TypographicQuotes: true})
	if err != nil {
		var se *shellwords.SyntaxError
		if !errors.As(err, &se) {
			se = &shellwords.SyntaxError{Msg: err.Error()}
		}
		c.Err = usageError(v, 0, fmt.Sprintf("%s at character %d", se.Msg, column(afterAt+se.Offset)))
		c.Err.Column = column(afterAt + se.Offset)
		return c
	}
	if perr := parseArgs(&c, v, toks); perr != nil {
		c.Err = perr
	}
	return c
}
