package commands

import (
	"context"

	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/hub"
)

// The GitHub calls the runner makes, as small interfaces (parts of
// hub.API).
type (
	reactionsAPI interface {
		// ReactToComment puts porchbot's reaction content on a comment and
		// says whether this call made it (201) or porchbot had already
		// reacted so (200), and when that reaction was made.
		ReactToComment(ctx context.Context, owner, repo string, id int64, content string) (hub.Reaction, error)
	}
	reposAPI interface {
		flow.API
	}
	issuesAPI interface {
		CreateComment(ctx context.Context, owner, repo string, number int, body string) (hub.Comment, error)
	}
	pullsAPI interface {
		GetPull(ctx context.Context, owner, repo string, number int) (hub.Pull, error)
	}
)

// githubAPI is one installation's API, as the runner uses it.
type githubAPI struct {
	reactions reactionsAPI
	repos     reposAPI
	issues    issuesAPI
	pulls     pullsAPI
}

func apiOf(api hub.API) githubAPI {
	return githubAPI{reactions: api, repos: api, issues: api, pulls: api}
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
func isNotFound(err error) bool { return hub.IsNotFound(err) }
