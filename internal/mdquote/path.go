package mdquote

import (
	"net/url"
	"strings"
)

// Path is a repository path or ref (a package, a branch, a tag) as it goes
// into the URL of a markdown link, [text](…/tree/<Path>): every segment
// percent-escaped, the slashes kept. Nothing in it can end the link
// (")", a space) or start markup after it.
func Path(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
