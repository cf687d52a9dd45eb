package bot

import (
	"testing"

	"github.com/google/go-github/v60/github"
)

func TestPushMayChangeKptfile(t *testing.T) {
	commit := func(added, modified, removed []string) *github.HeadCommit {
		return &github.HeadCommit{Added: added, Modified: modified, Removed: removed}
	}
	many := make([]*github.HeadCommit, pushPayloadCommits)
	for i := range many {
		many[i] = commit(nil, []string{"README.md"}, nil)
	}
	for _, tc := range []struct {
		name string
		ev   *github.PushEvent
		want bool
	}{
		{"yaml only", &github.PushEvent{Commits: []*github.HeadCommit{commit([]string{"app/cm.yaml"}, []string{"app/d.yaml"}, nil)}}, false},
		{"Kptfile added", &github.PushEvent{Commits: []*github.HeadCommit{commit([]string{"app/Kptfile"}, nil, nil)}}, true},
		{"Kptfile modified", &github.PushEvent{Commits: []*github.HeadCommit{commit(nil, nil, nil), commit(nil, []string{"a/b/Kptfile"}, nil)}}, true},
		{"Kptfile removed", &github.PushEvent{Commits: []*github.HeadCommit{commit(nil, nil, []string{"Kptfile"})}}, true},
		{"a file named like it", &github.PushEvent{Commits: []*github.HeadCommit{commit([]string{"app/Kptfile.bak", "docs/Kptfile/x"}, nil, nil)}}, false},
		{"forced", &github.PushEvent{Forced: github.Bool(true)}, true},
		{"branch created", &github.PushEvent{Created: github.Bool(true)}, true},
		{"more commits than the payload lists", &github.PushEvent{Commits: many}, true},
		{"no commits", &github.PushEvent{}, false},
	} {
		if got := pushMayChangeKptfile(tc.ev); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
