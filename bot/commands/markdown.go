package commands

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/porchbot/porchbot/internal/mdquote"
)

// links builds the URLs of a repository's web pages.
type links struct {
	web, owner, repo string
}

func (l links) base() string {
	return strings.TrimSuffix(l.web, "/") + "/" + url.PathEscape(l.owner) + "/" + url.PathEscape(l.repo)
}

// tree is <web>/<owner>/<repo>/tree/<ref>.
func (l links) tree(ref string) string { return l.base() + "/tree/" + mdquote.Path(ref) }

func (l links) pull(n int) string { return l.base() + "/pull/" + strconv.Itoa(n) }

func (l links) commit(sha string) string { return l.base() + "/commit/" + sha }

// mdCodeLink is [text](url) with text as code.
func mdCodeLink(text, u string) string { return "[" + mdquote.Code(text) + "](" + u + ")" }
