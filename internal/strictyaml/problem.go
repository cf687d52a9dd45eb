package strictyaml

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with a document, at a position.
type Problem struct {
	File   string // as given to the reader, e.g. ".github/porchbot.yaml"
	Line   int    // 1-based
	Column int    // 1-based
	// Field is the dotted path of the field at fault, e.g.
	// "approvals.required" or "variants[0].targets"; empty for problems
	// with the document itself.
	Field   string
	Message string
	// Cause is the parser's own message for a document that is not YAML
	// ("yaml: line 5: mapping values are not allowed in this context"),
	// as kpt prints it; empty for every other problem.
	Cause string
}

// String is the editor-friendly "file:line:col: message".
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
}

// ValidationError is every problem found in one document, in document order.
type ValidationError struct {
	Problems []Problem
}

// Error lists the problems, one "file:line:col: message" per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sortProblems orders problems by position, keeping the order in which they
// were found for problems at the same position.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
