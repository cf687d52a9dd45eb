package mdtest

import (
	"regexp"
	"slices"
	"testing"
)

// Writers are porchbot's real templates, each given one piece of text that
// users control in every place it takes one (prefixed where an empty text
// is written otherwise: "(no notes)", "(removed)"). Each package that
// writes markdown keeps its own and checks them with CheckWriters.
type Writers map[string]func(s string) string

// Seeds are the texts every fuzz of Writers starts from: markup, HTML
// comments, tables, mentions, references, links and control characters.
var Seeds = []string{"</details>\n\n<!--\n", "```\n# x\n```", "| a |\n|---|\n", "@acme/platform #1 o/r#2 https://x.example www.x.example",
	"`` ` ``", "<summary>x</summary>", "-->", "\r\n\x00\u202e", "1. x\n> y\n===", "[x](javascript:alert(1))", "&lt;details&gt;"}

// Fuzz runs CheckWriters over Seeds and what the fuzzer makes of them.
func Fuzz(f *testing.F, writers Writers) {
	for _, s := range Seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { CheckWriters(t, writers, s) })
}

// CheckWriters asserts that s, in every template, leaves the document's
// structure as a harmless text does and makes nothing live that porchbot
// did not write itself.
func CheckWriters(t testing.TB, writers Writers, s string) {
	t.Helper()
	for name, write := range writers {
		doc, plain := write(s), write("q")
		if got, want := Structure(doc), Structure(plain); got != want {
			t.Fatalf("%s with %q: structure changed\n%s\ngot:\n%s\nwant:\n%s", name, s, doc, got, want)
		}
		if got, want := Live(doc), Live(plain); !slices.Equal(got, want) {
			t.Fatalf("%s with %q: live %q, porchbot's own %q in\n%s", name, s, got, want, doc)
		}
	}
}

// LinkNames are names that try to end a link and start markup after it.
var LinkNames = []string{")<!--", ") @acme/platform #1", "](https://evil.example)", "` </details>", "x y\n\n# z", "<details>"}

var linkDest = regexp.MustCompile(`(?m)^(\s*Link) .*$`)

// CheckLinkWriters asserts, for writers that put a name users control into
// the URL of one of porchbot's links as well as into its text, that no
// name of LinkNames ends the link and starts markup after it: the
// documents differ only in where the links point.
func CheckLinkWriters(t *testing.T, writers Writers) {
	t.Helper()
	for _, s := range LinkNames {
		for name, write := range writers {
			doc, plain := write(s), write("q")
			got := linkDest.ReplaceAllString(Structure(doc), "$1")
			if want := linkDest.ReplaceAllString(Structure(plain), "$1"); got != want {
				t.Errorf("%s with %q: structure changed\n%s\ngot:\n%s\nwant:\n%s", name, s, doc, got, want)
			}
			if got, want := Live(doc), Live(plain); len(got) != len(want) {
				t.Errorf("%s with %q: live %q, porchbot's own %q in\n%s", name, s, got, want, doc)
			}
		}
	}
}
