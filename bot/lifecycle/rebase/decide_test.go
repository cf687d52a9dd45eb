package rebase

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestDecide(t *testing.T) {
	h := func(s string) plumbing.Hash { return plumbing.NewHash(strings.Repeat(s, 40)) }
	behind := Facts{Head: h("1"), Published: h("2"), ForkPoint: h("3"), ForkTree: h("a"), PublishedTree: h("b"), HeadHasPackage: true}
	for name, tc := range map[string]struct {
		edit func(*Facts)
		want string
	}{
		"behind":        {func(*Facts) {}, ""},
		"unrelated":     {func(f *Facts) { f.ForkPoint = plumbing.ZeroHash }, SkipUnrelated},
		"current":       {func(f *Facts) { f.ForkPoint = f.Published }, SkipCurrent},
		"merged":        {func(f *Facts) { f.ForkPoint = f.Head }, SkipMerged},
		"no package":    {func(f *Facts) { f.HeadHasPackage = false }, SkipNoPackage},
		"none in rev":   {func(f *Facts) { f.PublishedTree = plumbing.ZeroHash }, SkipNoPackage},
		"new package":   {func(f *Facts) { f.ForkTree = plumbing.ZeroHash }, SkipNewBase},
		"same package":  {func(f *Facts) { f.ForkTree = f.PublishedTree }, SkipSameBase},
		"outside files": {func(f *Facts) { f.Outside = []string{"README.md"} }, SkipOutside},
	} {
		f := behind
		tc.edit(&f)
		if got, why := Decide(f); got != tc.want || (got != "" && why == "") {
			t.Errorf("%s: Decide = %q (%q), want %q", name, got, why, tc.want)
		}
	}
}
