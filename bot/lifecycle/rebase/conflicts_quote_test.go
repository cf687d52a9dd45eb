package rebase

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/update"
)

// rebaseWriters: the conflicts comment, given one piece of text that users
// control in every place it takes one (mdtest.Writers).
var rebaseWriters = mdtest.Writers{
	"rebase conflicts comment": func(s string) string {
		return ConflictsComment(DraftOutcome{Branch: "drafts/basens/w" + s, Package: "basens" + s, Tag: "basens/v2",
			Conflicts: []update.Conflict{{File: "f" + s, Resource: "r" + s, Field: "k" + s, Local: "l" + s, Upstream: "u" + s}}}, "main"+s)
	},
}

// FuzzRebaseWritersQuote: no text in the comment changes the structure
// of what porchbot writes around it or mentions anyone.
func FuzzRebaseWritersQuote(f *testing.F) { mdtest.Fuzz(f, rebaseWriters) }

// The comment carries its revision's marker and lists every conflict.
func TestConflictsComment(t *testing.T) {
	body := ConflictsComment(DraftOutcome{Branch: "drafts/basens/w3", Package: "basens", Tag: "basens/v2",
		Conflicts: []update.Conflict{{File: "namespace.yaml", Resource: "v1 ResourceQuota example/default", Field: "spec.hard.pods", Local: "70", Upstream: "60"}}}, "main")
	for _, want := range []string{conflictMarker("basens/v2"), "| `namespace.yaml` | `v1 ResourceQuota example/default` | `spec.hard.pods` | `70` | `60` |",
		"`drafts/basens/w3`", "Merge `main` into the draft"} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, body)
		}
	}
}
