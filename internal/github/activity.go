package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// Activity is one entry of GitHub's "List repository activities"
// (GET /repos/{owner}/{repo}/activity): a branch moved from Before to
// After by Actor at Timestamp (to the second), as a push, force_push,
// branch_creation, branch_deletion, pr_merge or merge_queue_merge.
// go-github has no such call.
type Activity struct {
	ID           int64             `json:"id"`
	Before       string            `json:"before"`
	After        string            `json:"after"`
	Ref          string            `json:"ref"`
	Timestamp    *github.Timestamp `json:"timestamp"`
	ActivityType string            `json:"activity_type"`
	Actor        *github.User      `json:"actor"`
}

// ActivityListOptions are the listing's filters: Ref is a branch name or
// refs/heads/<name>; Direction "desc" (the default, newest first) or
// "asc"; After a cursor from a previous Response.After.
type ActivityListOptions struct {
	Ref       string
	Direction string
	PerPage   int
	After     string
}

// ListActivities lists a repository's activities (one REST call per
// page; resp.After is the next page's cursor, "" on the last).
func ListActivities(ctx context.Context, c *github.Client, owner, repo string, opts ActivityListOptions) ([]*Activity, *github.Response, error) {
	q := url.Values{}
	if opts.Ref != "" {
		q.Set("ref", opts.Ref)
	}
	if opts.Direction != "" {
		q.Set("direction", opts.Direction)
	}
	if opts.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(opts.PerPage))
	}
	if opts.After != "" {
		q.Set("after", opts.After)
	}
	u := fmt.Sprintf("repos/%s/%s/activity", url.PathEscape(owner), url.PathEscape(repo))
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := c.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	var out []*Activity
	resp, err := c.Do(ctx, req, &out)
	if err != nil {
		return nil, resp, fmt.Errorf("list activities of %s/%s: %w", owner, repo, err)
	}
	return out, resp, nil
}
