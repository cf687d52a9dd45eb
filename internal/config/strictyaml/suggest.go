package strictyaml

import "strings"

// Suggest returns the candidate closest to word when it is close enough to
// be a likely typo (by edit distance, ignoring case), or "".
func Suggest(word string, candidates []string) string {
	best, bestDist := "", -1
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := distance(w, strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 {
		return ""
	}
	limit := len([]rune(word)) / 3
	limit = max(limit, 1)
	limit = min(limit, 3)
	if bestDist <= limit {
		return best
	}
	return ""
}

// distance is the Levenshtein edit distance, with adjacent transpositions
// counted as one edit (optimal string alignment).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
