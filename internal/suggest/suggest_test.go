package suggest

import (
	"slices"
	"testing"
)

func TestNearest(t *testing.T) {
	verbs := []string{"help", "list", "init", "edit", "reject", "render"}
	for _, tc := range []struct {
		word  string
		limit int
		want  []string
	}{
		{"hepl", 2, []string{"help"}},
		{"Edti", 2, []string{"edit"}},
		{"help", 2, nil},              // identical: no suggestion
		{"HELP", 2, []string{"help"}}, // case only
		{"reset", 2, []string{"reject"}},
		{"rendre", 1, []string{"render"}},
		{"zzzzzzzz", 2, nil},
		{"int", 1, []string{"init"}},
		{"", 1, nil},
	} {
		if got := Nearest(tc.word, verbs, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q, %d) = %v, want %v", tc.word, tc.limit, got, tc.want)
		}
	}
}

func TestBest(t *testing.T) {
	known := []string{"apiVersion", "kind", "packages", "approvals", "required", "approvers", "publishOn"}
	for word, want := range map[string]string{
		"aprovals":   "approvals",
		"approval":   "approvals",
		"Approvals":  "approvals",
		"requird":    "required",
		"reqiured":   "required", // transposition
		"apiversion": "apiVersion",
		"knd":        "kind",
		"publishon":  "publishOn",
		"colour":     "",
		"x":          "",
		"packagesss": "packages",
		"pkgs":       "",
	} {
		if got := Best(word, known); got != want {
			t.Errorf("Best(%q) = %q, want %q", word, got, want)
		}
	}
	if got := Best("a", nil); got != "" {
		t.Errorf("Best with no candidates = %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		bound int
		want  int
	}{
		{"kitten", "sitting", 5, 3},
		{"ab", "ba", 2, 1},
		{"a", "abcdef", 2, 3}, // beyond the bound: bound+1
		{"", "", 1, 0},
		{"héllo", "hello", 2, 1},
		{"a", "", 1, 1},
		{"approvals", "aprovals", 1, 1},
	} {
		if got := Distance(tc.a, tc.b, tc.bound); got != tc.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.bound, got, tc.want)
		}
	}
}
