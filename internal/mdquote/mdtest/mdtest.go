// Package mdtest reads markdown as GitHub would (CommonMark with GitHub's
// extensions, by goldmark) for the tests of what porchbot writes: the
// structure of a document without its text, and the mentions and
// references GitHub would act on. Tests only.
package mdtest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Structure is the tree of doc's nodes, one per line, indented by depth:
// block and inline kinds, the raw text of HTML (blocks and inline), link
// destinations and table shapes; the words of text and code are left out,
// so two documents that differ only in quoted text have the same
// structure.
func Structure(doc string) string {
	src := []byte(doc)
	root := md.Parser().Parse(text.NewReader(src))
	var b strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindText, ast.KindString:
			return ast.WalkContinue, nil
		}
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat(" ", depth), n.Kind())
		switch v := n.(type) {
		case *ast.HTMLBlock:
			fmt.Fprintf(&b, " %s", tags(lines(v, src)+closure(v, src)))
		case *ast.RawHTML:
			fmt.Fprintf(&b, " %s", tags(segments(v.Segments, src)))
		case *ast.Link:
			fmt.Fprintf(&b, " %q", v.Destination)
		case *ast.AutoLink:
			fmt.Fprintf(&b, " %q", v.URL(src))
		case *ast.Heading:
			fmt.Fprintf(&b, " %d", v.Level)
		}
		if n.Kind() == ast.KindCodeSpan {
			b.WriteString("\n")
			return ast.WalkSkipChildren, nil
		}
		b.WriteString("\n")
		return ast.WalkContinue, nil
	})
	return b.String()
}

// tags is the HTML markup of raw without its text: tags with their
// attributes, comments, doctypes.
func tags(raw string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(raw))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			continue
		}
		fmt.Fprintf(&b, "%q", z.Token().String())
	}
}

// htmlText is the text of raw HTML, as the browser reads it.
func htmlText(raw string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(raw))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.WriteString(z.Token().Data)
		default:
			b.WriteByte(' ')
		}
	}
}

func lines(n ast.Node, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		s := n.Lines().At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}

func closure(v *ast.HTMLBlock, src []byte) string {
	if v.HasClosure() {
		return string(v.ClosureLine.Value(src))
	}
	return ""
}

func segments(ss *text.Segments, src []byte) string {
	var b strings.Builder
	for i := 0; i < ss.Len(); i++ {
		s := ss.At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}

// live are the patterns GitHub acts on in text outside code and links: a
// mention (user or team), an issue reference (#1, owner/repo#1, GH-1) and
// a URL it would link.
var live = regexp.MustCompile(`(?i)(^|[^\w])@[a-z0-9]|#[0-9]|\bgh-[0-9]|[a-z]://|\bwww\.`)

// Live lists the mentions, references and URLs GitHub would act on in
// doc: in its text (that of HTML blocks too), outside code spans, code
// blocks, inline HTML and links, and
// the URLs it linked by itself.
func Live(doc string) []string {
	src := []byte(doc)
	root := md.Parser().Parse(text.NewReader(src))
	var out []string
	var run strings.Builder
	flush := func() {
		out = append(out, live.FindAllString(run.String(), -1)...)
		run.Reset()
	}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.Kind() {
		case ast.KindAutoLink:
			if entering {
				flush()
				out = append(out, string(n.(*ast.AutoLink).URL(src)))
			}
			return ast.WalkSkipChildren, nil
		case ast.KindHTMLBlock:
			if entering {
				flush()
				v := n.(*ast.HTMLBlock)
				out = append(out, live.FindAllString(htmlText(lines(v, src)+closure(v, src)), -1)...)
			}
			return ast.WalkSkipChildren, nil
		case ast.KindCodeSpan, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindRawHTML, ast.KindLink:
			if entering {
				flush()
			}
			return ast.WalkSkipChildren, nil
		case ast.KindText:
			if entering {
				t := n.(*ast.Text)
				run.Write(util.UnescapePunctuations(t.Segment.Value(src)))
				if t.SoftLineBreak() || t.HardLineBreak() {
					run.WriteByte('\n')
				}
			}
		case ast.KindString:
			if entering {
				run.Write(n.(*ast.String).Value)
			}
		default:
			if n.Type() == ast.TypeBlock {
				flush()
			}
		}
		return ast.WalkContinue, nil
	})
	flush()
	return out
}
