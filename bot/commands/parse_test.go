package commands

import (
	"reflect"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/suggest"
)

func TestParseCommands(t *testing.T) {
	type cmd struct {
		line  int
		verb  string
		args  []string
		flags map[string]string
	}
	for _, tc := range []struct {
		name string
		body string
		want []cmd
	}{
		{"one", "/porch init network/upf", []cmd{{1, "init", []string{"network/upf"}, nil}}},
		{"leading space and CRLF", "LGTM\r\n   /porch list\r\n", []cmd{{2, "list", nil, nil}}},
		{"case", "/PORCH Init basens", []cmd{{1, "init", []string{"basens"}, nil}}},
		{"bare prefix is help", "/porch", []cmd{{1, "help", nil, nil}}},
		{"double quotes", `/porch init x --description "two words"`, []cmd{{1, "init", []string{"x"}, map[string]string{"description": "two words"}}}},
		{"flag=value and single quotes", `/porch init x --description='it is "fine"' --workspace=ws1`,
			[]cmd{{1, "init", []string{"x"}, map[string]string{"description": `it is "fine"`, "workspace": "ws1"}}}},
		{"escapes", `/porch init x --description "say \"hi\" \\ \n"`, []cmd{{1, "init", []string{"x"}, map[string]string{"description": `say "hi" \ \n`}}}},
		{"backslash space", `/porch init x --description two\ words`, []cmd{{1, "init", []string{"x"}, map[string]string{"description": "two words"}}}},
		{"typographic quotes", "/porch init x --description “two words”", []cmd{{1, "init", []string{"x"}, map[string]string{"description": "two words"}}}},
		{"empty value", `/porch init x --description ""`, []cmd{{1, "init", []string{"x"}, map[string]string{"description": ""}}}},
		{"em dash flag", "/porch edit basens —from v2", []cmd{{1, "edit", []string{"basens"}, map[string]string{"from": "v2"}}}},
		{"flags before args", "/porch clone --workspace w acme/catalog/basens@v1 edge/basens",
			[]cmd{{1, "clone", []string{"acme/catalog/basens@v1", "edge/basens"}, map[string]string{"workspace": "w"}}}},
		{"upgrade", "/porch upgrade upf --to v3 --strategy fast-forward",
			[]cmd{{1, "upgrade", []string{"upf"}, map[string]string{"to": "v3", "strategy": "fast-forward"}}}},
		{"rollback", "/porch rollback basens v2", []cmd{{1, "rollback", []string{"basens", "v2"}, nil}}},
		{"a switch", "/porch approve --orphan-downstreams", []cmd{{1, "approve", nil, map[string]string{"orphan-downstreams": ""}}}},
		{"dependents", "/porch dependents network/upf", []cmd{{1, "dependents", []string{"network/upf"}, nil}}},
		{"reject free text", "/porch reject this isn't ready", []cmd{{1, "reject", []string{"this isn't ready"}, nil}}},
		{"reject quoted", `/porch reject "not yet"`, []cmd{{1, "reject", []string{"not yet"}, nil}}},
		{"reject bare", "/porch reject", []cmd{{1, "reject", nil, nil}}},
		{"propose draft", "/porch propose network/upf/ws1\n/porch propose drafts/basens/v2",
			[]cmd{{1, "propose", []string{"network/upf/ws1"}, nil}, {2, "propose", []string{"drafts/basens/v2"}, nil}}},
		{"help verb", "/porch help clone", []cmd{{1, "help", []string{"clone"}, nil}}},
		{"several", "Thanks!\n/porch approve\nand\n/porch render\n", []cmd{{2, "approve", nil, nil}, {4, "render", nil, nil}}},
		{"backtick fence", "```\n/porch init x\n```\n/porch list", []cmd{{4, "list", nil, nil}}},
		{"fence with info string", "```sh\n/porch init x\n```\n", nil},
		{"tilde fence", "~~~\n/porch init x\n~~~\n/porch list", []cmd{{4, "list", nil, nil}}},
		{"longer fence needs a longer close", "````\n```\n/porch init x\n````\n/porch list", []cmd{{5, "list", nil, nil}}},
		{"unclosed fence", "```\n/porch init x\n", nil},
		{"inline code is not a fence", "```/porch init x```\n/porch list", []cmd{{2, "list", nil, nil}}},
		{"quote", "> /porch init x\n>/porch list\n  > /porch help", nil},
		{"html comment", "<!--\n/porch init x\n-->\n<!-- /porch list -->\n/porch help", []cmd{{5, "help", nil, nil}}},
		{"not ours", "/porchbot help\n/porch-x help\nsee /porch help\n`/porch help`", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.body)
			if len(got) != len(tc.want) {
				t.Fatalf("Parse(%q) = %+v, want %d commands", tc.body, got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Err != nil {
					t.Fatalf("command %d: %v", i, g.Err)
				}
				if g.Line != w.line || g.Verb != w.verb || !reflect.DeepEqual(g.Args, w.args) || !reflect.DeepEqual(g.Flags, w.flags) {
					t.Errorf("command %d = line %d %s %q %v, want line %d %s %q %v", i, g.Line, g.Verb, g.Args, g.Flags, w.line, w.verb, w.args, w.flags)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		body     string
		want     string
		suggest  []string
		showHelp bool
	}{
		{"/porch pubilsh", "unknown command `/porch pubilsh`", []string{"publish"}, true},
		{"/porch aprove", "unknown command", []string{"approve"}, true},
		{"/porch lsit", "unknown command", []string{"list", "init", "edit"}, true},
		{"/porch frobnicate", "unknown command", nil, true},
		{"/porch init", "an argument is missing; usage: `/porch init <package> [--workspace W] [--description D]`", nil, false},
		{"/porch init a b", "too many arguments (2; quote values that contain spaces)", nil, false},
		{"/porch init x --description two words", "too many arguments", nil, false},
		{`/porch init x --description "open`, `a double quote (") is not closed`, nil, false},
		{`/porch init x --description it's`, "a single quote (') is not closed", nil, false},
		{`/porch init x \`, "ends with a backslash", nil, false},
		{"/porch init x --worksapce w", "has no flag --worksapce (did you mean --workspace?)", nil, false},
		{"/porch init x -w w", "has no flag --w", nil, false},
		{"/porch init x --workspace", "--workspace needs a value", nil, false},
		{"/porch init x --workspace a --workspace b", "--workspace is given twice", nil, false},
		{"/porch approve --orphan-downstreams=yes", "--orphan-downstreams takes no value", nil, false},
		{"/porch approve --orphan-downstream", "has no flag --orphan-downstream (did you mean --orphan-downstreams?)", nil, false},
		{"/porch approve --orphan-downstreams --orphan-downstreams", "--orphan-downstreams is given twice", nil, false},
		{"/porch dependents", "an argument is missing; usage: `/porch dependents <package>`", nil, false},
		{"/porch dependents ../etc", "usage: `/porch dependents <package>`", nil, false},
		{"/porch init x --workspace Bad_One", "invalid workspace name", nil, false},
		{"/porch init ../x", "invalid package name", nil, false},
		{"/porch edit x --from 3", "--from takes a revision such as v3", nil, false},
		{"/porch upgrade x --strategy resource-merg", "(did you mean resource-merge?)", nil, false},
		{"/porch rollback x 3", "write the revision v3", nil, false},
		{"/porch rollback x latest", `"latest" is not a revision`, nil, false},
		{"/porch propose basens", "is not <package>/<workspace>", nil, false},
		{"/porch help nope", `there is no verb "nope"`, nil, false},
		{"/porch approve now", "too many arguments", nil, false},
		{"/porch list --workspace x", "has no flag --workspace", nil, false},
	} {
		got := Parse(tc.body)
		if len(got) != 1 || got[0].Err == nil {
			t.Errorf("Parse(%q) = %+v, want one error", tc.body, got)
			continue
		}
		e := got[0].Err
		if !strings.Contains(e.Message, tc.want) || !reflect.DeepEqual(e.Suggestions, tc.suggest) || e.ShowHelp != tc.showHelp {
			t.Errorf("Parse(%q): %q suggestions %v help %v; want %q %v %v", tc.body, e.Message, e.Suggestions, e.ShowHelp, tc.want, tc.suggest, tc.showHelp)
		}
	}
}

func TestParseBounds(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxCommands+3; i++ {
		b.WriteString("/porch list\n")
	}
	got := Parse(b.String())
	if len(got) != MaxCommands+1 {
		t.Fatalf("%d commands, want %d and one error", len(got), MaxCommands+1)
	}
	for _, c := range got[:MaxCommands] {
		if c.Err != nil || c.Verb != "list" {
			t.Fatalf("command %+v", c)
		}
	}
	if e := got[MaxCommands].Err; e == nil || !strings.Contains(e.Message, "only the first 10 commands of a comment are run; 3 more were not run") {
		t.Fatalf("overflow: %+v", got[MaxCommands])
	}

	long := "/porch init x --description " + strings.Repeat("é", MaxLineLength)
	got = Parse(long)
	if len(got) != 1 || got[0].Err == nil || !strings.Contains(got[0].Err.Message, "a command line has at most 2048") {
		t.Fatalf("long line: %+v", got)
	}
	if len(got[0].Text) > 210 {
		t.Fatalf("the echoed text of a long line is cut, got %d bytes", len(got[0].Text))
	}
	if Parse("") != nil || Parse("just words\n") != nil {
		t.Fatal("no command, no result")
	}
}

func TestParseSuggest(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"publish", "publish", 0}, {"pubilsh", "publish", 1}, {"aprove", "approve", 1}, {"lsit", "list", 1},
		{"rendr", "render", 1}, {"clnoe", "clone", 1}, {"x", "help", 3}, {"", "list", 3}, {"edti", "edit", 1},
	} {
		if d := suggest.Distance(tc.a, tc.b, MaxSuggestDistance); d != tc.d && !(tc.d > MaxSuggestDistance && d > MaxSuggestDistance) {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
	if got := suggest.Nearest("Edti", VerbNames(), MaxSuggestDistance); !reflect.DeepEqual(got, []string{"edit"}) {
		t.Errorf("Suggest(Edti) = %v", got)
	}
	if got := suggest.Nearest("help", VerbNames(), MaxSuggestDistance); len(got) != 0 {
		t.Errorf("an exact match is no suggestion: %v", got)
	}
	if got := suggest.Nearest("reset", VerbNames(), MaxSuggestDistance); !reflect.DeepEqual(got, []string{"reject"}) {
		t.Errorf("Suggest(reset) = %v", got)
	}
}

func TestParseQuotedArguments(t *testing.T) {
	c := Parse(`/porch init "net work" --description “Session management”`)[0]
	if c.Err == nil || c.Err.Arg != 1 {
		t.Fatalf("a package name with a space: %+v", c.Err)
	}
	c = Parse(`/porch init smf --description “Session management”`)[0]
	if c.Err != nil || c.Flag("description") != "Session management" {
		t.Fatalf("typographic quotes: %+v %v", c.Err, c.Flags)
	}
	c = Parse(`/porch reject`)[0]
	if c.Err != nil {
		t.Fatal(c.Err)
	}
}

func TestParseErrorPositions(t *testing.T) {
	for line, want := range map[string]ParseError{
		"/porch lsit":                            {Column: 8},
		`  /porch  init smf --description "open`: {Column: 32},
		"/porch init":                            {Arg: 1},
		"/porch init a b":                        {Arg: 2},
		"/porch init a --wrkspace x":             {Arg: 2},
		"/porch init a --workspace":              {Arg: 2},
		"/porch rollback basens 3":               {Arg: 2},
		"/porch edit basens --from v1 --from v2": {Arg: 4},
	} {
		c := Parse(line)[0]
		if c.Err == nil || c.Err.Column != want.Column || c.Err.Arg != want.Arg {
			t.Errorf("%q: %+v, want column %d arg %d", line, c.Err, want.Column, want.Arg)
		}
	}
}
