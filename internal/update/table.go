package update

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/porchbot/porchbot/internal/mdquote"
)

// tableCellMax bounds a value in the table: conflicts show a field, not a
// document.
const tableCellMax = 60

// WriteTable prints conflicts as the table the CLIs and update pull request
// bodies show: a header, then one aligned row per conflict (file, resource,
// field, local value, upstream value, side taken). Nothing at all for no
// conflict. A removed value shows as "(removed)", a long one is cut.
func WriteTable(w io.Writer, cs []Conflict) error {
	if len(cs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tRESOURCE\tFIELD\tLOCAL\tUPSTREAM\tTAKEN")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(c.File), cell(c.Resource), cell(c.Field),
			value(c.Local), value(c.Upstream), cell(c.Taken))
	}
	return tw.Flush()
}

// WriteJSON prints conflicts as a JSON array (`[]` for none), one object per
// conflict with the fields of Conflict.
func WriteJSON(w io.Writer, cs []Conflict) error {
	if cs == nil {
		cs = []Conflict{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cs)
}

func value(s string) string {
	if s == "" {
		return "(removed)"
	}
	return cell(s)
}

// cell keeps a value on one line and within tableCellMax runes.
func cell(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	return mdquote.TruncateRunes(s, tableCellMax, "…")
}
