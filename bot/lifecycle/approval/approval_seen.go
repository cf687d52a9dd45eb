package approval

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/words"
)

// seenActivityPage is how many of the head branch's latest activities
// HeadAtComment reads (one page): a comment older than that many pushes
// is not placed.
const seenActivityPage = 100

// Activities lists a repository's branch moves (a part of hub.API).
type Activities interface {
	ListActivities(ctx context.Context, owner, repo string, q hub.ActivityQuery) ([]hub.Activity, hub.Next, error)
}

// SeenHead is the head of a pull request at the moment a comment was
// written: Commit, or, when that cannot be established with certainty,
// none and Why (for the commenter).
type SeenHead struct {
	Commit string
	Why    string
}

// HeadAtComment is the head of pull request pr when a comment was written
// at at (GitHub's created_at, whole seconds): the commit its head branch
// pointed to then, read from the repository activity of the head's
// repository (GET /repos/{owner}/{repo}/activity?ref=<branch>, one REST
// call, the latest 100 moves of the branch, newest first). It is not
// established, and Why says so, when
//   - the branch moved in the same second as the comment (GitHub dates
//     both to the second: which came first is unknown);
//   - the listing is not readable (a fork porchbot cannot read), does not
//     end at the pull request's head (a push meanwhile), or does not reach
//     back to the comment (no recorded move before it, or more than 100
//     since).
//
// Other errors of the call are returned.
func HeadAtComment(ctx context.Context, api Activities, pr hub.Pull, at time.Time) (SeenHead, error) {
	owner, name, ref := pr.Head.RepoOwner, pr.Head.RepoName, pr.Head.Ref
	if owner == "" || name == "" || ref == "" {
		return SeenHead{Why: "the pull request's head branch is gone"}, nil
	}
	if at.IsZero() {
		return SeenHead{Why: "GitHub did not say when the comment was written"}, nil
	}
	acts, next, err := api.ListActivities(ctx, owner, name,
		hub.ActivityQuery{Ref: "refs/heads/" + ref, PerPage: seenActivityPage})
	if st := hub.StatusOf(err); st == http.StatusNotFound || st == http.StatusForbidden {
		return SeenHead{Why: "porchbot cannot read the pushes of the pull request's head branch (a fork's)"}, nil
	}
	if err != nil {
		return SeenHead{}, fmt.Errorf("head of #%d when the comment was written: %w", pr.Number, err)
	}
	more := next.After != ""
	return headAt(acts, more, pr.Head.SHA, at), nil
}

// headAt places a comment written at at among a branch's activities
// (newest first; more when older ones were not listed) whose latest move
// must end at current: the commit the branch pointed to then.
func headAt(acts []hub.Activity, more bool, current string, at time.Time) SeenHead {
	sec := at.UTC().Truncate(time.Second)
	if len(acts) == 0 {
		return SeenHead{Why: "GitHub lists no push of the pull request's branch"}
	}
	if !strings.EqualFold(acts[0].After, current) {
		return SeenHead{Why: "the branch's recorded pushes do not end at the pull request's head yet"}
	}
	for _, a := range acts {
		if a.Timestamp.IsZero() {
			return SeenHead{Why: "GitHub did not date a push of the branch"}
		}
		switch moved := a.Timestamp.UTC().Truncate(time.Second); {
		case moved.Equal(sec):
			return SeenHead{Why: fmt.Sprintf("the branch moved to %s in the same second as the comment (%s): "+
				"which of the two came first is not known", words.CommitOrUnknown(strings.ToLower(a.After)), sec.Format(time.RFC3339))}
		case moved.After(sec):
			continue
		}
		after := strings.ToLower(a.After)
		if len(after) != 40 || !plumbing.IsHash(after) || plumbing.NewHash(after).IsZero() {
			return SeenHead{Why: "the branch did not exist when the comment was written"}
		}
		return SeenHead{Commit: after}
	}
	if more {
		return SeenHead{Why: fmt.Sprintf("the branch moved more than %d times since the comment", seenActivityPage)}
	}
	return SeenHead{Why: "GitHub lists no push of the branch before the comment"}
}
