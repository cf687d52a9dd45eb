package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/hub"
)

// ReactToComment reacts to an issue comment over the REST API. go-github's
// Reaction has no created_at, which the command takeover needs, so the
// answer is read into a struct of its own.
func (a API) ReactToComment(ctx context.Context, owner, repo string, id int64, content string) (hub.Reaction, error) {
	u := fmt.Sprintf("repos/%s/%s/issues/comments/%d/reactions", url.PathEscape(owner), url.PathEscape(repo), id)
	req, err := a.GH.NewRequest(http.MethodPost, u, &struct {
		Content string `json:"content"`
	}{content})
	if err != nil {
		return hub.Reaction{}, err
	}
	var out struct {
		CreatedAt *github.Timestamp `json:"created_at"`
	}
	resp, err := a.GH.Do(ctx, req, &out)
	if err != nil {
		return hub.Reaction{}, hubError(resp, err)
	}
	r := hub.Reaction{Made: resp == nil || resp.StatusCode != http.StatusOK}
	if out.CreatedAt != nil {
		r.CreatedAt = out.CreatedAt.Time
	}
	return r, nil
}
