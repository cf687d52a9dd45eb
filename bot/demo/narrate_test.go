package demo

import (
	"strings"
	"testing"
)

func TestTextTable(t *testing.T) {
	md := "### Functions\n\n| Package | Function | Results |\n|---|---|---|\n" +
		"| `network/upf` | `set-namespace` (ns) | \\[info\\] a &lt;b&gt;<br>\\[warning\\] x \\| y |\n" +
		"| `p` | [`fn`](http://x/fn) | `a\\_b` c\\_d |\n\nSee [the docs](http://x/docs)."
	want := "### Functions\n\n" +
		"Package      Function            Results\n" +
		"───────────  ──────────────────  ───────────────\n" +
		"network/upf  set-namespace (ns)  [info] a <b>\n" +
		"                                 [warning] x | y\n" +
		"p            fn <http://x/fn>    a\\_b c_d\n" +
		"\nSee the docs <http://x/docs>."
	if got := textTable(md); got != want {
		t.Errorf("textTable:\n%s\nwant:\n%s", got, want)
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("aaa bbb ccc ddd", 9)
	if strings.Join(got, "|") != "aaa bbb|  ccc ddd" {
		t.Errorf("wrapWords: %q", got)
	}
}

func TestRedact(t *testing.T) {
	in := "git clone http://alice:alice-token@127.0.0.1:1/acme/catalog.git and http://127.0.0.1:1/x@y"
	want := "git clone http://***@127.0.0.1:1/acme/catalog.git and http://127.0.0.1:1/x@y"
	if got := redact(in); got != want {
		t.Errorf("redact:\n%s\nwant\n%s", got, want)
	}
}

func TestUsageSince(t *testing.T) {
	before := Counts{Forge: map[string]int64{"GET /a": 1}, Users: map[string]int64{}, Bot: map[string]int64{}}
	after := Counts{
		Forge: map[string]int64{"GET /a": 4, "POST /app/installations/{id}/access_tokens": 1, "GIT info-refs": 3,
			"GIT upload-pack": 2, "GET /_forge/stats": 5},
		Users: map[string]int64{"REST": 1, "GIT info-refs": 1},
		Bot:   map[string]int64{"GET /a": 2, "POST /app/installations/{number}/access_tokens": 1},
	}
	after.Git.Fetches = 2
	u := after.Since(before)
	if u.REST != 4 || u.UserREST != 1 || u.BotREST != 3 || u.BotOwnREST != 3 || !u.Consistent() ||
		u.SessionCalls != 1 || u.GitRequests != 5 || u.UserGit != 1 || u.BotGit != 4 || u.Fetches != 2 {
		t.Errorf("usage: %+v", u)
	}
	if got := u.CallList(); got != "2× GET /a, 1× POST /app/installations/{number}/access_tokens" {
		t.Errorf("call list: %s", got)
	}
}

// TestPlainTextCodeSpans: code spans read as mdquote writes them (a
// longer fence around backticks, padding around a leading backtick).
func TestPlainTextCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"`pkg` and ``a`b``":     "pkg and a`b",
		"`` `a `` \\_x":         "`a _x",
		"[`` x`y ``](http://u)": "x`y <http://u>",
		"an unclosed ` \\*":     "an unclosed ` *",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}
