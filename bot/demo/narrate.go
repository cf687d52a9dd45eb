package demo

import (
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/porchbot/porchbot/internal/mdquote"
)

// narrator writes the transcript: numbered steps, who does what, and what
// porchbot answered.
type narrator struct {
	w    io.Writer
	step int
}

// heading opens step n.
func (n *narrator) heading(title string) {
	n.step++
	fmt.Fprintf(n.w, "\n%d. %s\n%s\n", n.step, title, strings.Repeat("─", min(78, utf8.RuneCountInString(title)+4)))
}

// act is one line by someone: "alice     comments …".
func (n *narrator) act(who, format string, a ...any) {
	fmt.Fprintf(n.w, "  %-9s %s\n", who, fmt.Sprintf(format, a...))
}

// more continues the previous line's speaker.
func (n *narrator) more(format string, a ...any) {
	fmt.Fprintf(n.w, "  %-9s %s\n", "", fmt.Sprintf(format, a...))
}

// block prints text indented under the speakers, after a caption.
func (n *narrator) block(caption, text string) {
	if caption != "" {
		n.more("%s", caption)
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(n.w, "  %-9s │ %s\n", "", l)
	}
}

// plain prints a line as is.
func (n *narrator) plain(format string, a ...any) { fmt.Fprintf(n.w, format+"\n", a...) }

var (
	mdLink   = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
	mdEscape = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
)

// plainText turns porchbot's markdown into terminal text: links become
// "text <url>", code spans (read as mdquote.CodeSpans reads them) show
// their content, backslash escapes outside them and HTML entities are
// unescaped.
func plainText(md string) string {
	md = mdLink.ReplaceAllStringFunc(md, func(m string) string {
		s := mdLink.FindStringSubmatch(m)
		text := codeShown(s[1], func(t string) string { return t })
		if text == s[2] || s[2] == "" {
			return text
		}
		return text + " <" + s[2] + ">"
	})
	md = codeShown(md, func(t string) string { return mdEscape.ReplaceAllString(t, "$1") }) // quoted text (mdquote.Text)
	return html.UnescapeString(strings.ReplaceAll(md, "\u200b", ""))
}

// codeShown is md with its code spans as a reader shows them and the
// text around them through outside.
func codeShown(md string, outside func(string) string) string {
	var b strings.Builder
	mdquote.CodeSpans(md, func(raw string, code bool) {
		if code {
			b.WriteString(mdquote.CodeContent(raw))
		} else {
			b.WriteString(outside(raw))
		}
	})
	return b.String()
}

// maxCell is the widest a table column gets; longer cells wrap.
const maxCell = 64

// textTable lays out the markdown tables of md as aligned columns (cells
// broken at <br> and wrapped at maxCell); other lines pass through
// plainText.
func textTable(md string) string {
	var out []string
	var rows [][][]string // row, cell, line
	flush := func() {
		if len(rows) == 0 {
			return
		}
		width := map[int]int{}
		for _, r := range rows {
			for i, c := range r {
				for _, l := range c {
					width[i] = max(width[i], utf8.RuneCountInString(l))
				}
			}
		}
		for ri, r := range rows {
			height := 0
			for _, c := range r {
				height = max(height, len(c))
			}
			for li := 0; li < height; li++ {
				var b strings.Builder
				for i, c := range r {
					l := ""
					if li < len(c) {
						l = c[li]
					}
					if i > 0 {
						b.WriteString("  ")
					}
					b.WriteString(l + strings.Repeat(" ", width[i]-utf8.RuneCountInString(l)))
				}
				out = append(out, strings.TrimRight(b.String(), " "))
			}
			if ri == 0 {
				var u strings.Builder
				for i := range r {
					if i > 0 {
						u.WriteString("  ")
					}
					u.WriteString(strings.Repeat("─", width[i]))
				}
				out = append(out, u.String())
			}
		}
		rows = nil
	}
	for _, line := range strings.Split(strings.TrimRight(md, "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") {
			t = strings.ReplaceAll(t, "\\|", "\x00")
			cells := strings.Split(strings.Trim(t, "|"), "|")
			sep := true
			row := make([][]string, len(cells))
			for i, c := range cells {
				c = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
				if strings.Trim(c, ":-") != "" {
					sep = false
				}
				for _, l := range strings.Split(c, "<br>") {
					row[i] = append(row[i], wrapWords(plainText(l), maxCell)...)
				}
			}
			if !sep {
				rows = append(rows, row)
			}
			continue
		}
		flush()
		out = append(out, plainText(line))
	}
	flush()
	return strings.Join(out, "\n")
}

// wrapWords breaks s into lines of at most width runes, at spaces where it
// can.
func wrapWords(s string, width int) []string {
	var out []string
	for utf8.RuneCountInString(s) > width {
		r := []rune(s)
		cut := width
		for i := width; i > width/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		s = "  " + strings.TrimLeft(string(r[cut:]), " ")
	}
	return append(out, s)
}
