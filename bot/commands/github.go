package commands

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
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
	permAdmin = "admin"
	permWrite = "write" // maintain is folded into write by the endpoint
	permRead  = "read"
	permNone  = "none"
)

// permission is a user's permission on a repository: the endpoint's
// level, and the precise role for messages. A user GitHub does not know
// has none.
func permission(ctx context.Context, repos reposAPI, owner, repo, login string) (level, role string, err error) {
	p, resp, err := repos.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return permNone, permNone, nil
		}
		return "", "", err
	}
	level = strings.ToLower(p.GetPermission())
	role = p.GetUser().GetRoleName()
	if role == "" {
		role = level
	}
	return level, role, nil
}

func canWrite(level string) bool { return level == permAdmin || level == permWrite }

func canRead(level string) bool { return canWrite(level) || level == permRead }

// isNotFound reports a 404 from the API.
func isNotFound(err error) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusNotFound
}
