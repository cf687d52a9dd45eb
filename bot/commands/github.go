package commands

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/flow"
)

// The GitHub calls the runner makes, as small interfaces satisfied by
// go-github's services.
type (
	reactionsAPI interface {
		// ClaimComment puts porchbot's reaction content on a comment and
		// says whether this call made it (201) or porchbot had already
		// reacted so (200), and when that reaction was made.
		ClaimComment(ctx context.Context, owner, repo string, id int64, content string) (claim, error)
	}
	reposAPI interface {
		GetPermissionLevel(ctx context.Context, owner, repo, user string) (*github.RepositoryPermissionLevel, *github.Response, error)
		Get(ctx context.Context, owner, repo string) (*github.Repository, *github.Response, error)
		GetCommit(ctx context.Context, owner, repo, sha string, opts *github.ListOptions) (*github.RepositoryCommit, *github.Response, error)
	}
	issuesAPI interface {
		CreateComment(ctx context.Context, owner, repo string, number int, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
	}
	pullsAPI interface {
		Get(ctx context.Context, owner, repo string, number int) (*github.PullRequest, *github.Response, error)
	}
)

// githubAPI is one installation's client, as the runner uses it.
type githubAPI struct {
	reactions reactionsAPI
	repos     reposAPI
	issues    issuesAPI
	pulls     pullsAPI
}

func apiOf(c *github.Client) githubAPI {
	return githubAPI{reactions: restReactions{c}, repos: c.Repositories, issues: c.Issues, pulls: c.PullRequests}
}

// Permission levels as the permission endpoint names them.
const (
	permAdmin = flow.LevelAdmin
	permWrite = flow.LevelWrite // maintain is folded into write by the endpoint
	permRead  = flow.LevelRead
	permNone  = flow.LevelNone
)

func canWrite(level string) bool { return flow.CanWrite(level) }

func canRead(level string) bool { return flow.CanRead(level) }

// isNotFound reports a 404 from the API.
func isNotFound(err error) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusNotFound
}
