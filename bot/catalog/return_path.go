package catalog

import "strings"

// maxReturnPath bounds the page to go back to after signing in.
const maxReturnPath = 2048

// home is where a sign-in ends when the page asked for is not accepted.
const home = "/"

// returnPath is p when it is a plain path of the catalog as a browser
// reads it (the WHATWG URL rules), else the catalog's home: the sign-in
// sends nobody to another site. Accepted: "/" then printable ASCII, no
// backslash (a browser reads "\" as "/"), no empty or dot segment in the
// path ("//host", "/./", "/../"), and no escape that decodes to a
// separator, a control character or another escape (%2f, %5c, %09,
// %25...). Refused as well: control characters, tabs and line breaks (a
// browser drops them, so "/\t/host" is "//host"), spaces, anything
// non-ASCII, schemes ("https:", "javascript:"), and paths longer than
// maxReturnPath. A query and a fragment may follow the path.
func returnPath(p string) string {
	if p == "" || len(p) > maxReturnPath || p[0] != '/' {
		return home
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '\\' {
			return home
		}
		if c == '%' && !plainEscape(p[i+1:]) {
			return home
		}
	}
	path := p
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if strings.Contains(path, "//") {
		return home
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return home
		}
	}
	return p
}

// plainEscape reports that s starts with two hex digits that do not
// decode to a separator, a backslash, a control character,
// a percent sign, "?", "#" or a dot (%2e%2e is "..").
func plainEscape(s string) bool {
	if len(s) < 2 || !isHex(s[0]) || !isHex(s[1]) {
		return false
	}
	c := unhex(s[0])<<4 | unhex(s[1])
	return c >= ' ' && c < 0x7f && !strings.ContainsRune(`/\%.?#`, rune(c))
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
