package mdquote_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
)

// hostile is text written to break out of what porchbot writes around it.
var hostile = []string{
	"</details>\n\n# Approved by everyone\n",
	"<!-- hide the rest",
	"-->",
	"```\n</details>\n```",
	"````",
	"~~~",
	"| a | b |\n|---|---|\n| c | d |",
	"@org/team and @someone, see #1 and other/repo#2 and GH-3",
	"https://github.com/acme/catalog/issues/1 www.example.com",
	"[click](https://evil.example) ![x](https://evil.example/x.png)",
	"*bold* _it_ ~~s~~ $x$ &amp; &#64;bob <b>x</b> <script>",
	"\\",
	"` ``code`` `",
	" leading and trailing ",
	"    indented code",
	"1. item\n- item\n> quote\n===\n---",
	"a\r\nb\rc\x00d\x1be\u202eevil\u2066",
	"\xff\xfe invalid",
	"",
	" ",
	"`",
	"a|b\\|c",
}

// templates place quoted text where porchbot's own markdown puts it: in
// a paragraph, a heading, a list item, a link text, a table cell, a
// <details> summary and body, around porchbot's own HTML comment.
var templates = []func(s string) string{
	func(s string) string {
		return fmt.Sprintf("<!-- porchbot:marker -->\nUpdates %s from %s (%s).\n\n### Notes\n\n", mdquote.Code(s), mdquote.Text(s), mdquote.Code(s))
	},
	func(s string) string { return "### " + mdquote.Text(s) + "\n\nafter\n" },
	func(s string) string {
		return "- " + mdquote.Code(s) + ": " + mdquote.Text(s) + "\n- see [" + mdquote.Text(s) + "](https://porchbot.example/x) " + mdquote.Code(s) + "\n"
	},
	func(s string) string {
		return "| file | local | note |\n|---|---|---|\n| " + mdquote.CodeCell(s) + " | " + mdquote.Text(s) + " | " + mdquote.CodeCell(s) + " |\n| x | y | z |\n\nafter\n"
	},
	func(s string) string {
		return "<details><summary>" + mdquote.HTML(s) + "</summary>\n\n" + mdquote.Fence(s) + "\n</details>\n\n### Conflicts\n\n| a |\n|---|\n| b |\n"
	},
	func(s string) string { return "before\n" + mdquote.Fence(s) + "after\n\n### Conflicts\n" },
	func(s string) string { return "> [!WARNING]\n> " + mdquote.Text(s) + "\n\n" + mdquote.Fence(s) },
}

// checkPlaced asserts that s, quoted into each template, leaves the
// document's structure as a harmless text does and makes nothing live.
func checkPlaced(t *testing.T, s string) {
	t.Helper()
	for i, tpl := range templates {
		want := mdtest.Structure(tpl("q"))
		doc := tpl(s)
		if got := mdtest.Structure(doc); got != want {
			t.Fatalf("template %d with %q: structure changed\n%s\ngot:\n%s\nwant:\n%s", i, s, doc, got, want)
		}
		if live := mdtest.Live(doc); len(live) > 0 {
			t.Fatalf("template %d with %q: live %q in\n%s", i, s, live, doc)
		}
	}
}

func TestQuotedTextKeepsTheStructure(t *testing.T) {
	for _, s := range hostile {
		checkPlaced(t, s)
	}
}

// FuzzQuote: no text, quoted and placed in porchbot's templates, changes
// the structure of the markdown around it or mentions anyone.
func FuzzQuote(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPlaced(t, s)
		for _, q := range []string{mdquote.Code(s), mdquote.CodeCell(s), mdquote.Text(s)} {
			if strings.ContainsAny(q, "\r\n") || !utf8.ValidString(q) {
				t.Fatalf("inline quote of %q is %q: more than one line or invalid UTF-8", s, q)
			}
		}
	})
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"pkg":     "`pkg`",
		"a`b":     "``a`b``",
		"`a":      "`` `a ``",
		" a ":     "`  a  `",
		"":        "` `",
		"a\nb":    "`a b`",
		"x``y`":   "``` x``y` ```",
		"a\x00b":  "`a\ufffdb`",
		"a|b":     "`a|b`",
		"@bob #1": "`@bob #1`",
	} {
		if got := mdquote.Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdquote.CodeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("CodeCell(a|b) = %q", got)
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":      "plain words",
		"a  b\n\nc":        "a b c",
		"<!--":             `\<\!\-\-`,
		"@org/team":        "@\u200borg/team",
		"#12 o/r#3 gh-4":   "\\#\u200b12 o/r\\#\u200b3 gh\\-\u200b4",
		"https://x.y":      "https:\u200b//x\\.y",
		"see www.x.y":      "see www\u200b\\.x\\.y",
		"a|b":              `a\|b`,
		"mail a@b.example": "mail a@\u200bb\\.example",
	} {
		if got := mdquote.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFence(t *testing.T) {
	for in, want := range map[string]string{
		"notes":         "```\nnotes\n```\n",
		"a\n```\nb\n\n": "````\na\n```\nb\n````\n",
		"a\r\nb\rc":     "```\na\nb\nc\n```\n",
	} {
		if got := mdquote.Fence(in); got != want {
			t.Errorf("Fence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuiet(t *testing.T) {
	for in, want := range map[string]string{
		"`x` by @bob in #1":       "`x` by @\u200bbob in #1",
		"package `@a #1` of @org": "package `@a #1` of @\u200borg",
		"`` a`@b ``, @c":          "`` a`@b ``, @\u200bc",
		"unclosed ` @d":           "unclosed ` @\u200bd",
	} {
		if got := mdquote.Quiet(in); got != want {
			t.Errorf("Quiet(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 8, "abcde…"}, // … is 3 bytes
		{"ééééé", 7, "éé…"},         // never half an é
		{"ab", 1, "…"},
	} {
		got := mdquote.Truncate(c.in, c.max, "…")
		if got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q: invalid UTF-8", c.in, c.max, got)
		}
	}
	if got := mdquote.TruncateRunes("ééééé", 3, "…"); got != "éé…" {
		t.Errorf("TruncateRunes = %q", got)
	}
	if got := mdquote.TruncateRunes("éé", 3, "…"); got != "éé" {
		t.Errorf("TruncateRunes = %q", got)
	}
}

// FuzzTruncate: the cut is valid UTF-8 when s is, within the bound when
// the mark fits, and a prefix of s followed by the mark.
func FuzzTruncate(f *testing.F) {
	f.Add("ééééé", 7)
	f.Add("abc", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 || !utf8.ValidString(s) {
			return
		}
		got := mdquote.Truncate(s, n, "…")
		if !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
		if got != s && (!strings.HasSuffix(got, "…") || !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) || n >= len("…") && len(got) > n) {
			t.Fatalf("Truncate(%q, %d) = %q", s, n, got)
		}
	})
}

func TestPath(t *testing.T) {
	for in, want := range map[string]string{
		"network/upf/v2":       "network/upf/v2",
		"drafts/p)<!--/w":      "drafts/p%29%3C%21--/w",
		"a b/c`d":              "a%20b/c%60d",
		"x](https://evil.x)/y": "x%5D%28https://evil.x%29/y",
	} {
		if got := mdquote.Path(in); got != want {
			t.Errorf("Path(%q) = %q, want %q", in, got, want)
		}
	}
}
