package commands

import (
	"sort"
	"strings"
)

// MaxSuggestDistance is the largest edit distance a "did you mean"
// suggestion may be from what was typed.
const MaxSuggestDistance = 2

// Suggest returns the candidates within MaxSuggestDistance of word
// (Damerau–Levenshtein, optimal string alignment: a swap of two adjacent
// letters is one edit), closest first, then in the candidates' order.
// Comparison ignores case; an exact match is not a suggestion.
func Suggest(word string, candidates []string) []string {
	word = strings.ToLower(word)
	type scored struct {
		name string
		d, i int
	}
	var found []scored
	for i, c := range candidates {
		d := editDistance(word, strings.ToLower(c))
		if d > 0 && d <= MaxSuggestDistance {
			found = append(found, scored{c, d, i})
		}
	}
	sort.SliceStable(found, func(a, b int) bool {
		if found[a].d != found[b].d {
			return found[a].d < found[b].d
		}
		return found[a].i < found[b].i
	})
	if len(found) == 0 {
		return nil
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b,
// over runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Long inputs cannot be within MaxSuggestDistance of a short verb;
	// the bound keeps the quadratic table small.
	if d := len(ra) - len(rb); d > MaxSuggestDistance || -d > MaxSuggestDistance {
		return MaxSuggestDistance + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
