package catalog

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// returnPathCases: the pages a sign-in may go back to, and the forms a
// browser would read as another site (or that hide one), which land on
// the catalog's home instead.
var returnPathCases = map[string]string{
	"/":                                     "/",
	"/repos/acme/catalog":                   "/repos/acme/catalog",
	"/repos/acme/catalog?x=1":               "/repos/acme/catalog?x=1",
	"/repos/acme/catalog/packages/net/upf/": "/repos/acme/catalog/packages/net/upf/",
	"/repos/acme/catalog/diff/net%20upf?from=1&to=2#top": "/repos/acme/catalog/diff/net%20upf?from=1&to=2#top",
	"":                                       "/",
	"repos/acme":                             "/",
	"https://evil.example/":                  "/",
	"javascript:alert(1)":                    "/",
	"//evil.example/":                        "/",
	"///evil.example/":                       "/",
	"/\\evil.example":                        "/",
	"\\/evil.example":                        "/",
	"\\\\evil.example":                       "/",
	"/\t/evil.example":                       "/",
	"/%09/evil.example":                      "/",
	"/\n/evil.example":                       "/",
	" //evil.example":                        "/",
	"\x00//evil.example":                     "/",
	"/%2fevil.example":                       "/",
	"/%2Fevil.example":                       "/",
	"/%5cevil.example":                       "/",
	"/%5Cevil.example":                       "/",
	"/%252fevil.example":                     "/",
	"/%2e%2e/%2e%2e//evil":                   "/",
	"/repos/../../evil":                      "/",
	"/./evil":                                "/",
	"/repos//evil.example":                   "/",
	"/a\r\nSet-Cookie: x=1":                  "/",
	"/%zz":                                   "/",
	"/%":                                     "/",
	"/é":                                     "/",
	"/\u2215\u2215evil.example":              "/",
	"/" + strings.Repeat("a", maxReturnPath): "/",
}

func TestReturnPath(t *testing.T) {
	for in, want := range returnPathCases {
		if got := returnPath(in); got != want {
			t.Errorf("returnPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// schemeRE is a URL scheme at the start of a reference.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// browserPath reads ref as a browser does a Location header on the
// catalog's page (the WHATWG URL parser, in what decides the origin):
// C0 controls and spaces trimmed at both ends, tabs and line breaks
// dropped anywhere, "\" read as "/"; a scheme or a leading "//" is
// another origin (ok false); else the path of the catalog it names.
func browserPath(ref string) (path string, ok bool) {
	s := strings.TrimFunc(ref, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(s)
	if schemeRE.MatchString(s) || strings.HasPrefix(s, "//") || !strings.HasPrefix(s, "/") {
		return "", false
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s, true
}

// FuzzReturnPath: whatever a sign-in is asked to go back to, it goes to
// the path it was given or home, and an accepted path is, by Go's URL
// parser and by a browser's reading, a path of the catalog's origin that
// a server decoding it once still reads as one.
func FuzzReturnPath(f *testing.F) {
	for in := range returnPathCases {
		f.Add(in)
	}
	base, _ := url.Parse("https://catalog.example/")
	f.Fuzz(func(t *testing.T, in string) {
		out := returnPath(in)
		if out != in && out != home {
			t.Fatalf("returnPath(%q) = %q: neither it nor home", in, out)
		}
		u, err := url.Parse(out)
		if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
			t.Fatalf("returnPath(%q) = %q: Go reads %#v (%v)", in, out, u, err)
		}
		if r := base.ResolveReference(u); r.Host != base.Host || r.Scheme != base.Scheme {
			t.Fatalf("returnPath(%q) = %q resolves to %s", in, out, r)
		}
		p, ok := browserPath(out)
		if !ok || !strings.HasPrefix(out, p) {
			t.Fatalf("returnPath(%q) = %q: a browser reads another origin or path (%q, %v)", in, out, p, ok)
		}
		dec, err := url.PathUnescape(p)
		if err != nil || strings.HasPrefix(dec, "//") || strings.ContainsAny(dec, "\\\t\r\n") {
			t.Fatalf("returnPath(%q) = %q decodes to %q (%v)", in, out, dec, err)
		}
	})
}
