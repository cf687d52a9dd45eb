// Package suggest is porchbot's one "did you mean": the candidates close to
// what was typed, by edit distance. Commands use it for verbs, flags and
// package names; the config reader for keys and values.
package suggest

import (
	"sort"
	"strings"
)

// MaxLimit is the largest distance Limit gives.
const MaxLimit = 3

// Limit is how far a candidate may be from word and still be a likely
// typo of it: a third of word's length, at least 1, at most MaxLimit.
func Limit(word string) int {
	return min(max(len([]rune(word))/3, 1), MaxLimit)
}

// Nearest returns the candidates within limit edits of word, closest
// first, then in the candidates' order. Distance ignores case and counts a
// swap of two adjacent letters as one edit (optimal string alignment); a
// candidate identical to word is not a suggestion.
func Nearest(word string, candidates []string, limit int) []string {
	w := strings.ToLower(word)
	type scored struct {
		name string
		d, i int
	}
	var found []scored
	for i, c := range candidates {
		if c == word {
			continue
		}
		if d := Distance(w, strings.ToLower(c), limit); d <= limit {
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

// Best is the nearest candidate within Limit(word), or "".
func Best(word string, candidates []string) string {
	if s := Nearest(word, candidates, Limit(word)); len(s) > 0 {
		return s[0]
	}
	return ""
}

// Distance is the optimal string alignment distance between a and b, over
// runes; when it is certainly above bound (the lengths differ by more),
// bound+1 is returned without computing it.
func Distance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > bound || -d > bound {
		return bound + 1
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
