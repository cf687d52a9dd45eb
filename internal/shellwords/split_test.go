package shellwords

import (
	"errors"
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		opt  Options
		want []string
	}{
		{`/bin/fn a b`, Options{}, []string{"/bin/fn", "a", "b"}},
		{`fn "a b" 'c d' e\ f`, Options{}, []string{"fn", "a b", "c d", "e f"}},
		{`fn "say \"hi\""`, Options{}, []string{"fn", `say "hi"`}},
		{`  fn   x  # comment y`, Options{Comments: true}, []string{"fn", "x"}},
		{"fn # one\nx", Options{Comments: true}, []string{"fn", "x"}},
		{`fn a#b`, Options{Comments: true}, []string{"fn", "a#b"}},
		{`fn # not a comment`, Options{}, []string{"fn", "#", "not", "a", "comment"}},
		{` a  "b c"'d e'f\ g "" `, Options{}, []string{"a", "b cd ef g", ""}},
		{`"a\nb"`, Options{}, []string{`a\nb`}},
		// kpt's exec lines (google/shlex): the backslash escapes any
		// character in double quotes, and only ASCII blanks separate
		{`fn --sep "a\nb"`, Options{Shlex: true}, []string{"fn", "--sep", "anb"}},
		{"fn a\u00a0b", Options{Shlex: true}, []string{"fn", "a\u00a0b"}},
		{"fn a\u00a0b", Options{}, []string{"fn", "a", "b"}},
		{`“typed quotes”`, Options{TypographicQuotes: true}, []string{"typed quotes"}},
		{`“typed`, Options{}, []string{"“typed"}},
		{``, Options{}, nil},
	} {
		got, err := Split(tc.in, tc.opt)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q, %+v) = %q, %v; want %q", tc.in, tc.opt, got, err, tc.want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	for in, col := range map[string]int{
		`fn "open`:     4,
		`é 'open`:      3,
		`fn a\`:        5,
		`x "a \" b`:    3,
		`fn 'it''s'x'`: 12,
	} {
		_, err := Split(in, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Column != col {
			t.Errorf("Split(%q) = %v, want a SyntaxError at character %d", in, err, col)
		}
	}
}
