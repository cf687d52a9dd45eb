package builtins

import (
	"os"
	"strings"
	"testing"
)

// The release tables of docs/functions.md and README.md say what Resolve
// runs and refuses.
func TestDocsListReleases(t *testing.T) {
	var want []string
	for _, s := range All() {
		refused := s.RefusedRanges()
		if refused == "" {
			refused = "none"
		}
		want = append(want, "| "+s.Name+" | "+s.VersionRanges()+" | "+refused+" |")
	}
	for _, doc := range []string{"../../../docs/functions.md", "../../../README.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, row := range want {
			if !strings.Contains(string(b), row+"\n") {
				missing = append(missing, row)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s lacks the release rows:\n%s\n(the full table:)\n%s", doc, strings.Join(missing, "\n"), strings.Join(want, "\n"))
		}
	}
}
