package forge

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// The forge's pages show comments, reviews, pull request bodies and check
// run outputs as GitHub does: markdown with GitHub's extensions, and of
// the HTML in it only what GitHub keeps for the text porchbot writes
// (details and summary, line breaks, emphasis and code) without any
// attribute. HTML comments, porchbot's hidden markers among them, are
// dropped; any other tag is shown as the text it is. Links keep goldmark's
// guard against javascript: and data: destinations.

// maxMarkdown bounds what one page renders of a single text.
const maxMarkdown = 256 << 10

var webMarkdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(safeHTMLRenderer{}, 100))),
)

// renderMarkdown is src as HTML for a page.
func renderMarkdown(src string) template.HTML {
	if len(src) > maxMarkdown {
		src = src[:maxMarkdown] + "\n\n… (cut at 256 KiB)"
	}
	var buf bytes.Buffer
	if err := webMarkdown.Convert([]byte(src), &buf); err != nil {
		return template.HTML("<pre>" + html.EscapeString(src) + "</pre>") //nolint:gosec // escaped
	}
	return template.HTML(buf.String()) //nolint:gosec // goldmark escapes text; raw HTML passes safeHTML
}

// safeHTMLRenderer renders raw HTML (blocks and inline) through safeHTML.
type safeHTMLRenderer struct{}

func (safeHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

func renderHTMLBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var raw bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		raw.Write(seg.Value(src))
	}
	if n.HasClosure() {
		raw.Write(n.ClosureLine.Value(src))
	}
	_, _ = w.WriteString(safeHTML(raw.String()))
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	var raw strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		raw.Write(seg.Value(src))
	}
	_, _ = w.WriteString(safeHTML(raw.String()))
	return ast.WalkSkipChildren, nil
}

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?(-->|$)`)
	// bareTag is an allowed tag without attributes.
	bareTag = regexp.MustCompile(`(?i)<(/?)(details|summary|br|b|i|em|strong|code|kbd|sub|sup|p|hr)\s*/?>`)
)

// safeHTML keeps the allowed bare tags of raw, drops its comments and
// escapes everything else.
func safeHTML(raw string) string {
	raw = htmlComment.ReplaceAllString(raw, "")
	var b strings.Builder
	last := 0
	for _, m := range bareTag.FindAllStringSubmatchIndex(raw, -1) {
		b.WriteString(html.EscapeString(raw[last:m[0]]))
		b.WriteString("<" + raw[m[2]:m[3]] + strings.ToLower(raw[m[4]:m[5]]) + ">")
		last = m[1]
	}
	b.WriteString(html.EscapeString(raw[last:]))
	return b.String()
}
