package forge

import "github.com/google/go-github/v60/github"

// The issue_comment webhook. (The App does not subscribe to "issues", so
// the forge sends none: GitHub delivers only subscribed events.)

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
