package mdquote_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/mdquote"
)

// spans is md's runs as CodeSpans gives them, code in [brackets].
func spans(md string) string {
	var out []string
	mdquote.CodeSpans(md, func(raw string, code bool) {
		if code {
			raw = "[" + raw + "]"
		}
		out = append(out, raw)
	})
	return strings.Join(out, "|")
}

func TestCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"no code":           "no code",
		"a `b` c":           "a |[`b`]| c",
		"`` a`b `` and `c`": "[`` a`b ``]| and |[`c`]",
		"``a`":              "``|a|`",
		"unclosed ` x":      "unclosed |`| x",
		"```x`` y```":       "[```x`` y```]",
	} {
		if got := spans(in); got != want {
			t.Errorf("CodeSpans(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range hostile {
		var b strings.Builder
		mdquote.CodeSpans(s, func(raw string, _ bool) { b.WriteString(raw) })
		if b.String() != s {
			t.Errorf("CodeSpans(%q) put together is %q", s, b.String())
		}
		if c := mdquote.Code(s); spans(c) != fmt.Sprintf("[%s]", c) {
			t.Errorf("Code(%q) = %q reads as %s", s, c, spans(c))
		}
	}
}

func TestCodeContent(t *testing.T) {
	for _, s := range []string{"pkg", "a`b", "`a", "a`", " a ", "x``y`", "a|b", "@bob #1", "  "} {
		if got := mdquote.CodeContent(mdquote.Code(s)); got != s {
			t.Errorf("CodeContent(Code(%q)) = %q", s, got)
		}
	}
	for in, want := range map[string]string{"`a\nb`": "a b", "`  `": "  ", "`` `` ``": "``", "` a`": " a"} {
		if got := mdquote.CodeContent(in); got != want {
			t.Errorf("CodeContent(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCodeSpans: the runs put together are the text, and what Code
// writes reads back as one code span.
func FuzzCodeSpans(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		mdquote.CodeSpans(s, func(raw string, _ bool) { b.WriteString(raw) })
		if b.String() != s {
			t.Fatalf("CodeSpans(%q) put together is %q", s, b.String())
		}
		if c := mdquote.Code(s); spans(c) != "["+c+"]" {
			t.Fatalf("Code(%q) = %q reads as %s", s, c, spans(c))
		}
	})
}
