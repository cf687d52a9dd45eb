package commands

import (
	"os"
	"strings"
	"testing"
)

// TestDocsCommandsTableIsTheHelpTable keeps docs/commands.md true.
func TestDocsCommandsTableIsTheHelpTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), strings.TrimSpace(HelpMarkdown())) {
		t.Fatalf("docs/commands.md does not hold the help table; paste HelpMarkdown():\n%s", HelpMarkdown())
	}
}
