package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/hub"
)

// API is hub.API over a go-github client (an installation's, usually):
// one REST call per method. Every failed call GitHub answered is a
// *hub.Error wrapping go-github's error (errors.As finds both); an error
// with no answer (network, context) is go-github's as it is.
type API struct{ GH *github.Client }

var _ hub.API = API{}

// NewAPI is the API over gh.
func NewAPI(gh *github.Client) API { return API{GH: gh} }

// hubError is err as hub.API returns it: a *hub.Error carrying the HTTP
// status, GitHub's message and error codes when GitHub answered the call
// (resp holds the answer, or the transport gave up on a rate limit:
// *RateLimitError, *SecondaryRateLimitError), err itself when not (nil
// when nil).
func hubError(resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	var (
		primary   *RateLimitError
		secondary *SecondaryRateLimitError
	)
	switch {
	case errors.As(err, &primary):
		return &hub.Error{Status: primary.StatusCode, RateLimited: true, Err: err}
	case errors.As(err, &secondary):
		return &hub.Error{Status: secondary.StatusCode, Message: secondary.Message, RateLimited: true, Err: err}
	case resp == nil || resp.Response == nil:
		return err
	}
	out := &hub.Error{Status: resp.StatusCode, Err: err}
	var (
		answer *github.ErrorResponse
		rate   *github.RateLimitError
		abuse  *github.AbuseRateLimitError
	)
	switch {
	case errors.As(err, &answer):
		out.Message = answer.Message
		for _, e := range answer.Errors {
			if e.Code != "" {
				out.Codes = append(out.Codes, e.Code)
			}
		}
	case errors.As(err, &rate):
		out.Message, out.RateLimited = rate.Message, true
	case errors.As(err, &abuse):
		out.Message, out.RateLimited = abuse.Message, true
	}
	return out
}

// listOptions is p as go-github's paging.
func listOptions(p hub.Page) github.ListOptions {
	return github.ListOptions{Page: p.Number, PerPage: p.PerPage}
}

// nextOf is the page after resp's.
func nextOf(resp *github.Response) hub.Next {
	if resp == nil {
		return hub.Next{}
	}
	return hub.Next{Page: resp.NextPage, After: resp.After}
}

// optString is s as an optional field: nil when empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ListPulls lists a repository's pull requests.
func (a API) ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error) {
	ps, resp, err := a.GH.PullRequests.List(ctx, owner, repo, &github.PullRequestListOptions{State: q.State,
		Head: q.Head, Base: q.Base, Sort: q.Sort, Direction: q.Direction, ListOptions: listOptions(q.Page)})
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	return pullsOf(ps), nextOf(resp), nil
}

func pullsOf(ps []*github.PullRequest) []hub.Pull {
	out := make([]hub.Pull, 0, len(ps))
	for _, p := range ps {
		out = append(out, PullOf(p))
	}
	return out
}

// GetPull reads a pull request.
func (a API) GetPull(ctx context.Context, owner, repo string, number int) (hub.Pull, error) {
	p, resp, err := a.GH.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return hub.Pull{}, hubError(resp, err)
	}
	return PullOf(p), nil
}

// CreatePull opens a pull request.
func (a API) CreatePull(ctx context.Context, owner, repo string, p hub.NewPull) (hub.Pull, error) {
	np := &github.NewPullRequest{Title: github.String(p.Title), Head: github.String(p.Head),
		Base: github.String(p.Base), Body: optString(p.Body)}
	if p.Draft {
		np.Draft = github.Bool(true)
	}
	pr, resp, err := a.GH.PullRequests.Create(ctx, owner, repo, np)
	if err != nil {
		return hub.Pull{}, hubError(resp, err)
	}
	return PullOf(pr), nil
}

// EditPull edits a pull request's title, body, state or base.
func (a API) EditPull(ctx context.Context, owner, repo string, number int, e hub.PullEdit) (hub.Pull, error) {
	edit := &github.PullRequest{Title: optString(e.Title), Body: optString(e.Body), State: optString(e.State)}
	if e.Base != "" {
		edit.Base = &github.PullRequestBranch{Ref: github.String(e.Base)}
	}
	pr, resp, err := a.GH.PullRequests.Edit(ctx, owner, repo, number, edit)
	if err != nil {
		return hub.Pull{}, hubError(resp, err)
	}
	return PullOf(pr), nil
}

// MergePull merges a pull request and returns the merge commit.
func (a API) MergePull(ctx context.Context, owner, repo string, number int, m hub.Merge) (string, error) {
	res, resp, err := a.GH.PullRequests.Merge(ctx, owner, repo, number, m.Message,
		&github.PullRequestOptions{SHA: m.SHA, MergeMethod: m.Method})
	if err != nil {
		return "", hubError(resp, err)
	}
	return res.GetSHA(), nil
}

// ListReviews lists a pull request's reviews.
func (a API) ListReviews(ctx context.Context, owner, repo string, number int, p hub.Page) ([]hub.Review, hub.Next, error) {
	opts := listOptions(p)
	rs, resp, err := a.GH.PullRequests.ListReviews(ctx, owner, repo, number, &opts)
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Review, 0, len(rs))
	for _, r := range rs {
		out = append(out, ReviewOf(r))
	}
	return out, nextOf(resp), nil
}

// ListPullsWithCommit lists the pull requests whose head or merge is sha.
func (a API) ListPullsWithCommit(ctx context.Context, owner, repo, sha string, p hub.Page) ([]hub.Pull, hub.Next, error) {
	opts := listOptions(p)
	ps, resp, err := a.GH.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &opts)
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	return pullsOf(ps), nextOf(resp), nil
}

// RequestReviewers asks users and teams (slugs) to review a pull request.
func (a API) RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error {
	_, resp, err := a.GH.PullRequests.RequestReviewers(ctx, owner, repo, number,
		github.ReviewersRequest{Reviewers: users, TeamReviewers: teams})
	return hubError(resp, err)
}

// AddLabels adds labels to an issue or pull request.
func (a API) AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error {
	_, resp, err := a.GH.Issues.AddLabelsToIssue(ctx, owner, repo, number, labels)
	return hubError(resp, err)
}

// RemoveLabel removes a label from an issue or pull request (IsNotFound
// when it does not carry it).
func (a API) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	resp, err := a.GH.Issues.RemoveLabelForIssue(ctx, owner, repo, number, label)
	return hubError(resp, err)
}

// CreateComment comments on an issue or pull request.
func (a API) CreateComment(ctx context.Context, owner, repo string, number int, body string) (hub.Comment, error) {
	c, resp, err := a.GH.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return hub.Comment{}, hubError(resp, err)
	}
	return CommentOf(c), nil
}

// ListComments lists an issue's or pull request's comments.
func (a API) ListComments(ctx context.Context, owner, repo string, number int, q hub.CommentQuery) ([]hub.Comment, hub.Next, error) {
	opts := &github.IssueListCommentsOptions{Sort: optString(q.Sort), Direction: optString(q.Direction),
		ListOptions: listOptions(q.Page)}
	if !q.Since.IsZero() {
		since := q.Since
		opts.Since = &since
	}
	cs, resp, err := a.GH.Issues.ListComments(ctx, owner, repo, number, opts)
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Comment, 0, len(cs))
	for _, c := range cs {
		out = append(out, CommentOf(c))
	}
	return out, nextOf(resp), nil
}

// DeleteComment deletes an issue comment.
func (a API) DeleteComment(ctx context.Context, owner, repo string, id int64) error {
	resp, err := a.GH.Issues.DeleteComment(ctx, owner, repo, id)
	return hubError(resp, err)
}

// ListIssues lists a repository's issues (GitHub lists pull requests
// among them: IsPull).
func (a API) ListIssues(ctx context.Context, owner, repo string, q hub.IssueQuery) ([]hub.Issue, hub.Next, error) {
	is, resp, err := a.GH.Issues.ListByRepo(ctx, owner, repo, &github.IssueListByRepoOptions{State: q.State,
		Creator: q.Creator, Labels: q.Labels, Sort: q.Sort, Direction: q.Direction, ListOptions: listOptions(q.Page)})
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Issue, 0, len(is))
	for _, i := range is {
		out = append(out, IssueOf(i))
	}
	return out, nextOf(resp), nil
}

// GetIssue reads an issue.
func (a API) GetIssue(ctx context.Context, owner, repo string, number int) (hub.Issue, error) {
	i, resp, err := a.GH.Issues.Get(ctx, owner, repo, number)
	if err != nil {
		return hub.Issue{}, hubError(resp, err)
	}
	return IssueOf(i), nil
}

// CreateIssue opens an issue.
func (a API) CreateIssue(ctx context.Context, owner, repo string, w hub.IssueWrite) (hub.Issue, error) {
	i, resp, err := a.GH.Issues.Create(ctx, owner, repo, issueRequest(w))
	if err != nil {
		return hub.Issue{}, hubError(resp, err)
	}
	return IssueOf(i), nil
}

// EditIssue edits an issue.
func (a API) EditIssue(ctx context.Context, owner, repo string, number int, w hub.IssueWrite) (hub.Issue, error) {
	i, resp, err := a.GH.Issues.Edit(ctx, owner, repo, number, issueRequest(w))
	if err != nil {
		return hub.Issue{}, hubError(resp, err)
	}
	return IssueOf(i), nil
}

// issueRequest is w as go-github's: empty fields (a nil Labels) not sent.
func issueRequest(w hub.IssueWrite) *github.IssueRequest {
	out := &github.IssueRequest{Title: optString(w.Title), Body: optString(w.Body), State: optString(w.State),
		StateReason: optString(w.StateReason)}
	if w.Labels != nil {
		labels := append([]string{}, w.Labels...)
		out.Labels = &labels
	}
	return out
}

// CreateCheckRun creates a check run.
func (a API) CreateCheckRun(ctx context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error) {
	opts := github.CreateCheckRunOptions{Name: w.Name, HeadSHA: w.HeadSHA, DetailsURL: optString(w.DetailsURL),
		ExternalID: optString(w.ExternalID), Status: optString(w.Status), Conclusion: optString(w.Conclusion),
		StartedAt: optTime(w.StartedAt), CompletedAt: optTime(w.CompletedAt), Output: checkOutput(w.Output)}
	r, resp, err := a.GH.Checks.CreateCheckRun(ctx, owner, repo, opts)
	if err != nil {
		return hub.CheckRun{}, hubError(resp, err)
	}
	return CheckRunOf(r), nil
}

// UpdateCheckRun updates a check run. w.HeadSHA is not sent (a run's
// commit does not change), nor w.StartedAt (go-github's update has no
// such field); w.Name is sent as it is, so give the run's name.
func (a API) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error) {
	opts := github.UpdateCheckRunOptions{Name: w.Name, DetailsURL: optString(w.DetailsURL),
		ExternalID: optString(w.ExternalID), Status: optString(w.Status), Conclusion: optString(w.Conclusion),
		CompletedAt: optTime(w.CompletedAt), Output: checkOutput(w.Output)}
	r, resp, err := a.GH.Checks.UpdateCheckRun(ctx, owner, repo, id, opts)
	if err != nil {
		return hub.CheckRun{}, hubError(resp, err)
	}
	return CheckRunOf(r), nil
}

// optTime is t as an optional field: nil when zero.
func optTime(t time.Time) *github.Timestamp {
	if t.IsZero() {
		return nil
	}
	return &github.Timestamp{Time: t}
}

// checkOutput is o as go-github's output (nil: none).
func checkOutput(o *hub.CheckOutput) *github.CheckRunOutput {
	if o == nil {
		return nil
	}
	out := &github.CheckRunOutput{Title: github.String(o.Title), Summary: github.String(o.Summary), Text: optString(o.Text)}
	for _, a := range o.Annotations {
		out.Annotations = append(out.Annotations, checkAnnotation(a))
	}
	return out
}

// checkAnnotation is a as GitHub takes it, by the rule of
// bot/lifecycle/core's Annotation.GitHub (without its truncation): lines
// at least 1 and ordered; columns only on a single line, as GitHub
// requires; level "notice" and message the title when not given.
func checkAnnotation(a hub.CheckAnnotation) *github.CheckRunAnnotation {
	start := max(a.StartLine, 1)
	end := max(a.EndLine, start)
	level := a.Level
	if level == "" {
		level = "notice"
	}
	msg := a.Message
	if msg == "" {
		msg = a.Title
	}
	out := &github.CheckRunAnnotation{Path: github.String(a.Path), StartLine: github.Int(start), EndLine: github.Int(end),
		AnnotationLevel: github.String(level), Message: github.String(msg),
		Title: optString(a.Title), RawDetails: optString(a.RawDetails)}
	if a.StartColumn > 0 && start == end {
		out.StartColumn = github.Int(a.StartColumn)
		out.EndColumn = github.Int(max(a.EndColumn, a.StartColumn))
	}
	return out
}

// ListCheckRuns lists the check runs of ref (a commit, branch or tag).
func (a API) ListCheckRuns(ctx context.Context, owner, repo, ref string, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error) {
	opts := &github.ListCheckRunsOptions{CheckName: optString(q.Name), Filter: optString(q.Filter),
		ListOptions: listOptions(q.Page)}
	if q.AppID != 0 {
		opts.AppID = github.Int64(q.AppID)
	}
	return checkRunsOf(a.GH.Checks.ListCheckRunsForRef(ctx, owner, repo, ref, opts))
}

// CombinedStatus is the latest commit status of each context on ref (one
// page of 100).
func (a API) CombinedStatus(ctx context.Context, owner, repo, ref string) ([]hub.CommitStatus, error) {
	cs, _, err := a.GH.Repositories.GetCombinedStatus(ctx, owner, repo, ref, &github.ListOptions{PerPage: 100})
	if err != nil {
		return nil, err
	}
	out := make([]hub.CommitStatus, 0, len(cs.Statuses))
	for _, s := range cs.Statuses {
		out = append(out, hub.CommitStatus{Context: s.GetContext(), State: s.GetState(), Description: s.GetDescription(),
			TargetURL: s.GetTargetURL(), UpdatedAt: s.GetUpdatedAt().Time})
	}
	return out, nil
}

// ListSuiteCheckRuns lists the check runs of check suite id: its Filter
// and page apply.
func (a API) ListSuiteCheckRuns(ctx context.Context, owner, repo string, id int64, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error) {
	opts := &github.ListCheckRunsOptions{Filter: optString(q.Filter), ListOptions: listOptions(q.Page)}
	return checkRunsOf(a.GH.Checks.ListCheckRunsCheckSuite(ctx, owner, repo, id, opts))
}

// checkRunsOf is a check-runs listing's answer as hub.API gives it.
func checkRunsOf(res *github.ListCheckRunsResults, resp *github.Response, err error) (hub.CheckRuns, hub.Next, error) {
	if err != nil {
		return hub.CheckRuns{}, hub.Next{}, hubError(resp, err)
	}
	out := hub.CheckRuns{Total: res.GetTotal()}
	for _, r := range res.CheckRuns {
		out.Runs = append(out.Runs, CheckRunOf(r))
	}
	return out, nextOf(resp), nil
}

// GetRepository reads a repository.
func (a API) GetRepository(ctx context.Context, owner, repo string) (hub.Repository, error) {
	r, resp, err := a.GH.Repositories.Get(ctx, owner, repo)
	if err != nil {
		return hub.Repository{}, hubError(resp, err)
	}
	return RepositoryOf(r), nil
}

// CommitAuthor is the login GitHub links the author of commit sha to
// ("" when none).
func (a API) CommitAuthor(ctx context.Context, owner, repo, sha string) (string, error) {
	c, resp, err := a.GH.Repositories.GetCommit(ctx, owner, repo, sha, nil)
	if err != nil {
		return "", hubError(resp, err)
	}
	return c.GetAuthor().GetLogin(), nil
}

// Permission is user's permission on the repository.
func (a API) Permission(ctx context.Context, owner, repo, user string) (hub.Permission, error) {
	p, resp, err := a.GH.Repositories.GetPermissionLevel(ctx, owner, repo, user)
	if err != nil {
		return hub.Permission{}, hubError(resp, err)
	}
	level := strings.ToLower(p.GetPermission())
	role := p.GetUser().GetRoleName()
	if role == "" {
		role = level
	}
	return hub.Permission{Level: level, Role: role}, nil
}

// TeamMembership is user's membership of org's team slug.
func (a API) TeamMembership(ctx context.Context, org, slug, user string) (hub.Membership, error) {
	m, resp, err := a.GH.Teams.GetTeamMembershipBySlug(ctx, org, slug, user)
	if err != nil {
		return hub.Membership{}, hubError(resp, err)
	}
	return hub.Membership{State: m.GetState(), Role: m.GetRole()}, nil
}

// ListInstallationRepos lists the repositories of the client's
// installation, and how many there are in all.
func (a API) ListInstallationRepos(ctx context.Context, p hub.Page) ([]hub.Repository, int, hub.Next, error) {
	opts := listOptions(p)
	res, resp, err := a.GH.Apps.ListRepos(ctx, &opts)
	if err != nil {
		return nil, 0, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Repository, 0, len(res.Repositories))
	for _, r := range res.Repositories {
		out = append(out, RepositoryOf(r))
	}
	return out, res.GetTotalCount(), nextOf(resp), nil
}

// CreateRef creates ref (refs/heads/…, refs/tags/…) at sha.
func (a API) CreateRef(ctx context.Context, owner, repo, ref, sha string) error {
	_, resp, err := a.GH.Git.CreateRef(ctx, owner, repo,
		&github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(sha)}})
	return hubError(resp, err)
}

// ListActivities lists a repository's activities, newest first.
func (a API) ListActivities(ctx context.Context, owner, repo string, q hub.ActivityQuery) ([]hub.Activity, hub.Next, error) {
	as, resp, err := ListActivities(ctx, a.GH, owner, repo, ActivityListOptions{Ref: q.Ref, PerPage: q.PerPage, After: q.After})
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Activity, 0, len(as))
	for _, x := range as {
		out = append(out, ActivityOf(x))
	}
	return out, nextOf(resp), nil
}

// CreateRelease creates a release (of an existing tag, or of one GitHub
// makes at TargetCommitish).
func (a API) CreateRelease(ctx context.Context, owner, repo string, r hub.Release) (hub.Release, error) {
	rel := &github.RepositoryRelease{TagName: github.String(r.TagName), Name: optString(r.Name),
		Body: optString(r.Body), TargetCommitish: optString(r.TargetCommitish),
		Draft: github.Bool(r.Draft), Prerelease: github.Bool(r.Prerelease)}
	out, resp, err := a.GH.Repositories.CreateRelease(ctx, owner, repo, rel)
	if err != nil {
		return hub.Release{}, hubError(resp, err)
	}
	return ReleaseOf(out), nil
}

// ListReleases lists a repository's releases.
func (a API) ListReleases(ctx context.Context, owner, repo string, p hub.Page) ([]hub.Release, hub.Next, error) {
	opts := listOptions(p)
	rs, resp, err := a.GH.Repositories.ListReleases(ctx, owner, repo, &opts)
	if err != nil {
		return nil, hub.Next{}, hubError(resp, err)
	}
	out := make([]hub.Release, 0, len(rs))
	for _, r := range rs {
		out = append(out, ReleaseOf(r))
	}
	return out, nextOf(resp), nil
}

// UploadReleaseAsset uploads data as the release's asset name: POST
// {uploads}/repos/{owner}/{repo}/releases/{id}/assets?name=NAME
// (go-github's own upload wants a file on disk).
func (a API) UploadReleaseAsset(ctx context.Context, owner, repo string, releaseID int64, name, mediaType string, data []byte) error {
	u := fmt.Sprintf("repos/%s/%s/releases/%d/assets?name=%s", url.PathEscape(owner), url.PathEscape(repo), releaseID, url.QueryEscape(name))
	req, err := a.GH.NewUploadRequest(u, bytes.NewReader(data), int64(len(data)), mediaType)
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	resp, err := a.GH.Do(ctx, req, nil)
	return hubError(resp, err)
}
