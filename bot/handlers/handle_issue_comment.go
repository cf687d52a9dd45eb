package handlers

import (
	"context"

	"github.com/google/go-github/v60/github"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/ingress"
)

// CommentReactor acts on a comment (/porch commands).
type CommentReactor interface {
	OnComment(ctx context.Context, installationID int64, ev *github.IssueCommentEvent) error
}

// IssueCommentHandler handles issue_comment events: comments on issues and
// pull requests carry /porch commands. It reacts through React when it is
// set (the App); without it, it only logs the comment.
type IssueCommentHandler struct{ React CommentReactor }

// Handle logs a *github.IssueCommentEvent and hands it to React.
func (h *IssueCommentHandler) Handle(ctx context.Context, ev *ingress.Event) error {
	payload, err := ev.Decode()
	if err != nil {
		return err
	}
	event, ok := payload.(*github.IssueCommentEvent)
	if !ok {
		return unexpectedPayload(ev, payload)
	}
	issue, comment := event.GetIssue(), event.GetComment()
	ingress.LoggerFrom(ctx).WithFields(logrus.Fields{
		"number":          issue.GetNumber(),
		"pull_request":    issue.IsPullRequest(),
		"comment_id":      comment.GetID(),
		"comment_author":  comment.GetUser().GetLogin(),
		"author_type":     comment.GetUser().GetType(),
		"author_relation": comment.GetAuthorAssociation(),
	}).Info("issue comment event")
	if h.React != nil {
		return h.React.OnComment(ctx, ev.InstallationID, event)
	}
	return nil
}
