package lifecycle_test

import (
	"testing"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/google/go-github/v60/github"
	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
	"github.com/porchbot/porchbot/internal/hub"
)

// harness is the lifecycle tests' rig (lifecycletest.Rig: a local forge
// with the standard cast and the bot's real clients); test files add their
// own helpers to it.
type harness struct{ *lifecycletest.Rig }

func newHarness(t *testing.T) *harness { return &harness{lifecycletest.New(t)} }

// hubComments are comments a user's client listed, in porchbot's view.
func hubComments(cs []*github.IssueComment) []hub.Comment {
	out := make([]hub.Comment, len(cs))
	for i, c := range cs {
		out[i] = ghclient.CommentOf(c)
	}
	return out
}

// hubReviews are reviews a user's client listed, in porchbot's view.
func hubReviews(rs []*github.PullRequestReview) []hub.Review {
	out := make([]hub.Review, len(rs))
	for i, r := range rs {
		out[i] = ghclient.ReviewOf(r)
	}
	return out
}

// hubPull is a pull request a user's client read, in porchbot's view (nil
// for nil).
func hubPull(pr *github.PullRequest) *hub.Pull {
	if pr == nil {
		return nil
	}
	p := ghclient.PullOf(pr)
	return &p
}
