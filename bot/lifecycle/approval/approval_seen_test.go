package approval

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/hub"
)

func TestHeadAtPlacesTheCommentAmongPushes(t *testing.T) {
	const (
		c1   = "1111111111111111111111111111111111111111"
		c2   = "2222222222222222222222222222222222222222"
		c3   = "3333333333333333333333333333333333333333"
		zero = "0000000000000000000000000000000000000000"
	)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	act := func(before, after string, sec int) hub.Activity {
		return hub.Activity{Before: before, After: after, Timestamp: t0.Add(time.Duration(sec) * time.Second)}
	}
	// newest first: created at c1 (0s), pushed c2 (10s), c3 (20s)
	acts := []hub.Activity{act(c2, c3, 20), act(c1, c2, 10), act(zero, c1, 0)}
	for _, c := range []struct {
		name    string
		acts    []hub.Activity
		more    bool
		current string
		at      time.Time
		want    string // commit, or a word of Why
	}{
		{"after the last push", acts, false, c3, t0.Add(25 * time.Second), c3},
		{"between two pushes", acts, false, c3, t0.Add(15 * time.Second), c2},
		{"sub-second time of the comment", acts, false, c3, t0.Add(15*time.Second + 900*time.Millisecond), c2},
		{"same second as a push", acts, false, c3, t0.Add(10*time.Second + 500*time.Millisecond), "same second"},
		{"same second as the creation", acts, false, c3, t0, "same second"},
		{"before the branch existed", acts, false, c3, t0.Add(-time.Minute), "no push of the branch before"},
		{"older pushes not listed", acts[:2], true, c3, t0.Add(5 * time.Second), "more than 100"},
		{"listing behind the head", acts, false, "4444444444444444444444444444444444444444", t0.Add(25 * time.Second), "do not end"},
		{"nothing listed", nil, false, c3, t0, "no push"},
		{"a deleted branch then", []hub.Activity{act(zero, c3, 20), act(c1, zero, 10), act(zero, c1, 0)}, false, c3,
			t0.Add(15 * time.Second), "did not exist"},
	} {
		got := headAt(c.acts, c.more, c.current, c.at)
		if len(c.want) == 40 {
			if got.Commit != c.want {
				t.Errorf("%s: %+v, want %s", c.name, got, c.want)
			}
			continue
		}
		if got.Commit != "" || !strings.Contains(got.Why, c.want) {
			t.Errorf("%s: %+v, want no commit and a reason with %q", c.name, got, c.want)
		}
	}
}

// seenActivities answers every activity listing with status, recording
// what was asked.
type seenActivities struct {
	status     int
	owner, ref string
}

func (a *seenActivities) ListActivities(_ context.Context, owner, repo string, q hub.ActivityQuery) ([]hub.Activity, hub.Next, error) {
	a.owner, a.ref = owner+"/"+repo, q.Ref
	return nil, hub.Next{}, &hub.Error{Status: a.status, Message: "no"}
}

// TestHeadAtCommentOfAnUnreadableFork: a fork's activity that porchbot
// cannot read (404, as GitHub answers for a repository one may not see)
// leaves the head unknown; any other error is porchbot's.
func TestHeadAtCommentOfAnUnreadableFork(t *testing.T) {
	api := &seenActivities{status: http.StatusNotFound}
	pr := hub.Pull{Number: 4, Head: hub.Branch{Ref: "fix", SHA: "3333333333333333333333333333333333333333",
		RepoOwner: "carol", RepoName: "catalog", RepoFullName: "carol/catalog"}}
	seen, err := HeadAtComment(context.Background(), api, pr, time.Now())
	if err != nil || seen.Commit != "" || !strings.Contains(seen.Why, "cannot read") {
		t.Fatalf("unreadable fork: %+v, %v", seen, err)
	}
	if api.owner != "carol/catalog" || api.ref != "refs/heads/fix" {
		t.Fatalf("asked %s %s, want the fork's branch", api.owner, api.ref)
	}
	api.status = http.StatusBadGateway
	if _, err := HeadAtComment(context.Background(), api, pr, time.Now()); err == nil {
		t.Fatal("a 502 was taken for an answer")
	}
}
