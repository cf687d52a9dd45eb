package proposals

import "testing"

func TestProposalTitle(t *testing.T) {
	human := func(s string) propDraftCommit { return propDraftCommit{Subject: s} }
	botc := propDraftCommit{Subject: "Render basens", Bot: true}
	for _, c := range []struct {
		commits []propDraftCommit
		want    string
	}{
		{[]propDraftCommit{human("Add a map")}, "basens: Add a map"},
		{[]propDraftCommit{botc, human("basens: set ns")}, "basens: set ns"},
		{[]propDraftCommit{human("a"), human("b")}, "basens: w1"},
		{[]propDraftCommit{botc}, "basens: w1"},
	} {
		if got := proposalTitle("basens", "w1", c.commits); got != c.want {
			t.Errorf("title %q, want %q", got, c.want)
		}
	}
}
