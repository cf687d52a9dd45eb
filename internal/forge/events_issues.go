package forge

import "github.com/google/go-github/v60/github"

// The issue_comment and issues webhooks.

// emitComment sends an issue_comment webhook: created, edited (with the
// previous body) or deleted. Its issue carries "pull_request" for a pull
// request's conversation.
func (f *Forge) emitComment(repo *Repo, action string, c commentView, issue issueView, sender *Account, oldBody *string) {
	if !f.wantsHooks(repo) {
		return
	}
	ev := &github.IssueCommentEvent{
		Action:       github.String(action),
		Issue:        f.issueObject(repo, issue),
		Comment:      f.commentObject(repo, c),
		Repo:         f.repoObject(repo),
		Sender:       f.userObject(sender),
		Installation: f.installationRef(repo),
		Organization: f.orgObject(repo.Owner),
	}
	if oldBody != nil {
		ev.Changes = &github.EditChange{Body: &github.EditBody{From: github.String(*oldBody)}}
	}
	f.emit("issue_comment", action, repo, ev)
}

// emitIssue sends an issues webhook for a plain issue (a pull request's
// issue half sends pull_request instead, as GitHub does): opened, edited
// (with what changed), closed or reopened. sender is who acted.
func (f *Forge) emitIssue(repo *Repo, action string, v issueView, sender *Account, changes *github.EditChange) {
	if v.Pull != nil || !f.wantsHooks(repo) {
		return
	}
	ev := &github.IssuesEvent{
		Action:       github.String(action),
		Issue:        f.issueObject(repo, v),
		Repo:         f.repoObject(repo),
		Sender:       f.userObject(sender),
		Installation: f.installationRef(repo),
		Org:          f.orgObject(repo.Owner),
	}
	if changes != nil && (changes.Title != nil || changes.Body != nil) {
		ev.Changes = changes
	}
	f.emit("issues", action, repo, ev)
}
