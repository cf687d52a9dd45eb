package forge

import "github.com/google/go-github/v60/github"

// The pull_request and pull_request_review webhooks, shaped as GitHub's
// (go-github's event types, filled as GitHub fills them).

// wantsHooks reports whether a webhook about repo would be delivered, so
// that payloads (which cost git calls) are built only then.
func (f *Forge) wantsHooks(repo *Repo) bool {
	app := f.appInfo()
	return app != nil && app.WebhookURL != "" && f.installationFor(repo) != nil || len(f.repoHooks.list(repo.ID)) > 0
}

// pullEvent is one pull_request webhook to send.
type pullEvent struct {
	view      issueView // the pull request as it was at the event
	action    string
	sender    *Account
	label     *Label             // labeled, unlabeled
	before    string             // synchronize
	after     string             // synchronize
	changes   *github.EditChange // edited
	requested *Account           // review_requested, review_request_removed
	assignee  *Account           // assigned, unassigned
}

// emitPull sends a pull_request webhook.
func (f *Forge) emitPull(repo *Repo, e pullEvent) {
	f.recordIssueEvent(repo, e)
	if e.view.Pull == nil || !f.wantsHooks(repo) {
		return
	}
	ev := &github.PullRequestEvent{
		Action: github.String(e.action), Number: github.Int(e.view.Issue.Number),
		PullRequest:  f.pullObject(repo, e.view, true),
		Repo:         f.repoObject(repo),
		Sender:       f.userObject(e.sender),
		Installation: f.installationRef(repo),
		Organization: f.orgObject(repo.Owner),
		Changes:      e.changes,
	}
	if e.label != nil {
		ev.Label = f.labelObject(repo, *e.label)
	}
	if e.before != "" || e.after != "" {
		ev.Before, ev.After = github.String(e.before), github.String(e.after)
	}
	if e.requested != nil {
		ev.RequestedReviewer = f.userObject(e.requested)
	}
	if e.assignee != nil {
		ev.Assignee = f.userObject(e.assignee)
	}
	f.emit("pull_request", e.action, repo, ev)
}

// emitPulls sends pull_request webhooks in order.
func (f *Forge) emitPulls(repo *Repo, evs []pullEvent) {
	for _, e := range evs {
		f.emitPull(repo, e)
	}
}

// reviewEventJSON is a pull_request_review payload whose review carries
// its "_links" as GitHub's does.
type reviewEventJSON struct {
	*github.PullRequestReviewEvent
	Review  *reviewJSON    `json:"review,omitempty"`
	Changes map[string]any `json:"changes,omitempty"`
}

// emitReview sends a pull_request_review webhook (submitted, edited,
// dismissed). Its pull_request is the "simple" object, as GitHub's.
func (f *Forge) emitReview(repo *Repo, action string, rv Review, view issueView, sender *Account) {
	f.emitReviewChanges(repo, action, rv, view, sender, nil)
}

// emitReviewEdited sends pull_request_review edited with the body it had.
func (f *Forge) emitReviewEdited(repo *Repo, rv Review, view issueView, sender *Account, oldBody string) {
	f.emitReviewChanges(repo, "edited", rv, view, sender, map[string]any{"body": map[string]any{"from": oldBody}})
}

func (f *Forge) emitReviewChanges(repo *Repo, action string, rv Review, view issueView, sender *Account, changes map[string]any) {
	if view.Pull == nil || !f.wantsHooks(repo) {
		return
	}
	ev := &reviewEventJSON{
		PullRequestReviewEvent: &github.PullRequestReviewEvent{
			Action:       github.String(action),
			PullRequest:  f.pullObject(repo, view, false),
			Repo:         f.repoObject(repo),
			Sender:       f.userObject(sender),
			Installation: f.installationRef(repo),
			Organization: f.orgObject(repo.Owner),
		},
		Review:  f.reviewObject(repo, rv, true),
		Changes: changes,
	}
	f.emit("pull_request_review", action, repo, ev)
}
