package commands

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse: any comment body parses without panic, into at most
// MaxCommands+1 commands, and every refusal is a ParseError with a
// message and a position (its line, and a column or an argument).
// `go test` runs the seeds; `go test -fuzz FuzzParse` explores.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"/porch help",
		"/porch init network/smf --description \"Session management\"",
		"/porch edit basens --from v2 --workspace w1",
		"/porch rollback basens 3",
		"/porch clone acme/catalog/basens@v1 edge/basens",
		"/porch propose network/upf/v1\n/porch approve",
		"/porch reject \"not now\"",
		"/porch upgrade basens --strategy resource-mrge",
		"/porch init “quoted name”",
		"/porch init 'open",
		"/porch init a\\",
		"```\n/porch init hidden\n```\n/porch lsit",
		"<!-- /porch init x -->\n> /porch init y\n/PORCH LIST",
		"/porch —workspace x",
		"/porch init a --workspace",
		"/porch init a b c d",
		"/porch\t\tinit\u00a0x",
		"/porch init \xff\xfe",
		"/porch help init",
		"/porch help nope",
		"/porch 1\n/porch 2\n/porch 3\n/porch 4\n/porch 5\n/porch 6\n/porch 7\n/porch 8\n/porch 9\n/porch 10\n/porch 11\n/porch 12",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmds := Parse(body)
		if len(cmds) > MaxCommands+1 {
			t.Fatalf("%d commands", len(cmds))
		}
		for i, c := range cmds {
			if c.Line < 1 {
				t.Fatalf("command %d has no line: %+v", i, c)
			}
			if c.Err == nil {
				v, ok := LookupVerb(c.Verb)
				if !ok {
					t.Fatalf("command %d: unknown verb %q accepted", i, c.Verb)
				}
				if !v.Text && (len(c.Args) < v.MinArgs || len(c.Args) > v.MaxArgs) {
					t.Fatalf("command %d: %d arguments for %s accepted", i, len(c.Args), c.Verb)
				}
				continue
			}
			e := c.Err
			if e.Message == "" {
				t.Fatalf("command %d: a refusal without a message", i)
			}
			if e.Column < 1 && e.Arg < 1 {
				t.Fatalf("command %d (%q): a refusal without a position: %+v", i, c.Text, e)
			}
			if e.Column > 0 && len(c.Text) <= MaxLineLength && e.Column > utf8.RuneCountInString(c.Text)+1 {
				t.Fatalf("command %d (%q): column %d past the line", i, c.Text, e.Column)
			}
		}
	})
}
