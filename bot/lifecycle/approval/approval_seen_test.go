package approval

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	ghclient "github.com/porchbot/porchbot/internal/github"
)

func TestHeadAtPlacesTheCommentAmongPushes(t *testing.T) {
	const (
		c1   = "1111111111111111111111111111111111111111"
		c2   = "2222222222222222222222222222222222222222"
		c3   = "3333333333333333333333333333333333333333"
		zero = "0000000000000000000000000000000000000000"
	)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	act := func(before, after string, sec int) *ghclient.Activity {
		return &ghclient.Activity{Before: before, After: after, Timestamp: &github.Timestamp{Time: t0.Add(time.Duration(sec) * time.Second)}}
	}
	// newest first: created at c1 (0s), pushed c2 (10s), c3 (20s)
	acts := []*ghclient.Activity{act(c2, c3, 20), act(c1, c2, 10), act(zero, c1, 0)}
	for _, c := range []struct {
		name    string
		acts    []*ghclient.Activity
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
		{"a deleted branch then", []*ghclient.Activity{act(zero, c3, 20), act(c1, zero, 10), act(zero, c1, 0)}, false, c3,
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

// TestHeadAtCommentOfAnUnreadableFork: a fork's activity that porchbot
// cannot read (404, as GitHub answers for a repository one may not see)
// leaves the head unknown; any other error is porchbot's.
func TestHeadAtCommentOfAnUnreadableFork(t *testing.T) {
	status := http.StatusNotFound
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/repos/carol/catalog/activity" || r.URL.Query().Get("ref") != "refs/heads/fix" {
			t.Errorf("unexpected call %s", r.URL)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"message":"no"}`))
	}))
	defer srv.Close()
	gh := github.NewClient(nil)
	gh.BaseURL, _ = url.Parse(srv.URL + "/")
	pr := &github.PullRequest{Number: github.Int(4), Head: &github.PullRequestBranch{Ref: github.String("fix"),
		SHA:  github.String("3333333333333333333333333333333333333333"),
		Repo: &github.Repository{Name: github.String("catalog"), Owner: &github.User{Login: github.String("carol")}}}}
	seen, err := HeadAtComment(context.Background(), gh, pr, time.Now())
	if err != nil || seen.Commit != "" || !strings.Contains(seen.Why, "cannot read") {
		t.Fatalf("unreadable fork: %+v, %v", seen, err)
	}
	status = http.StatusBadGateway
	if _, err := HeadAtComment(context.Background(), gh, pr, time.Now()); err == nil {
		t.Fatal("a 502 was taken for an answer")
	}
}
