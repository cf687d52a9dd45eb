package approval

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// Who asked for a proposal (the requester), for the self-approval rule.
// It is taken from facts the author cannot rewrite: a pull request opened
// by a person is that person's (its author as the API gives it); one the
// bot opened on someone's behalf (/porch propose, /porch delete) is the
// requester's named in the bot's own requester record, a comment the bot
// writes right after opening it:
//
//	Requested by @alice (`/porch propose`).
//	<!-- porchbot:requester {"user":"alice","sig":"…"} -->
//
// The record counts only in a comment by the bot, not edited after it was
// written, and, with a RecordKey, with a valid HMAC over repository, pull
// request and user. The pull request body is never read: its author can
// edit it. A bot-opened proposal without a valid record (someone deleted
// it) has no known requester, and then no approval counts
// (approval_requirements.go): a deleted record blocks the proposal rather than
// lifting the self-approval rule.

const requesterMarkerKind = "requester"

// requesterMarker is the payload of a requester record.
type requesterMarker struct {
	User string `json:"user"`
	Sig  string `json:"sig,omitempty"`
}

// requesterSignature is the hex HMAC-SHA256 of the requester record of
// pull request n of repo under key.
func requesterSignature(key []byte, repo string, n int, user string) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "porchbot:requester\x00%s\x00%d\x00%s", strings.ToLower(repo), n, strings.ToLower(user))
	return hex.EncodeToString(mac.Sum(nil))
}

// RequesterComments is the call a requester record takes (Issues).
type RequesterComments interface {
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (hub.Comment, error)
}

// RecordRequester writes the requester record of pull request n (one
// call). how is the command that asked ("/porch propose").
func RecordRequester(ctx context.Context, s *core.Session, issues RequesterComments, key []byte, n int, user, how string) error {
	user = strings.TrimPrefix(strings.TrimSpace(user), "@")
	if user == "" {
		return nil
	}
	m := requesterMarker{User: user}
	if len(key) > 0 {
		m.Sig = requesterSignature(key, s.Repo.FullName(), n, user)
	}
	body := fmt.Sprintf("Requested by @%s (%s). Their own approval counts only if `approvals.allowSelfApproval` is true.\n\n%s\n",
		user, mdquote.Code(how), FormatBotMarker(requesterMarkerKind, m))
	if _, err := issues.CreateComment(ctx, s.Repo.Owner, s.Repo.Name, n, body); err != nil {
		return fmt.Errorf("record the requester of #%d: %w", n, err)
	}
	return nil
}

// ProposalRequester is who asked for pr: its author, or for a pull request
// the bot opened, the user of the first valid requester record among its
// comments ("" when there is none: unknown). Body records are not read
// (ProposalRequesterIn reads them).
func ProposalRequester(api ProposalAPI, repo string, pr hub.Pull, comments []hub.Comment) string {
	return ProposalRequesterIn(api, repo, pr, comments, nil)
}

// ProposalRequesterIn is ProposalRequester that also reads the requester
// record of the body (approval_requester_at.go), which counts only for a
// commit own says is the pull request's.
func ProposalRequesterIn(api ProposalAPI, repo string, pr hub.Pull, comments []hub.Comment, own OwnCommit) string {
	if !api.IsBot(pr.User) {
		return pr.User.Login
	}
	if u := BodyRequester(api.RecordKey, repo, pr, own); u != "" {
		return u
	}
	for _, c := range comments {
		if !api.IsBot(c.User) || botCommentEdited(c) {
			continue
		}
		for _, raw := range findBotMarkers(c.Body, requesterMarkerKind) {
			var m requesterMarker
			if json.Unmarshal(raw, &m) != nil || m.User == "" {
				continue
			}
			if len(api.RecordKey) > 0 {
				want := requesterSignature(api.RecordKey, repo, pr.Number, m.User)
				if !hmac.Equal([]byte(want), []byte(strings.ToLower(m.Sig))) {
					continue
				}
			}
			return m.User
		}
	}
	return ""
}

// botCommentEdited reports a comment edited after it was written (people
// with write access can edit the bot's comments).
func botCommentEdited(c hub.Comment) bool {
	return !c.UpdatedAt.IsZero() && !c.CreatedAt.IsZero() && c.UpdatedAt.After(c.CreatedAt)
}

// EnsureRequester repairs a bot-opened pull request that has no valid
// requester record (its writing failed after the pull request was made,
// or someone deleted it): the user asking again is recorded. One comment
// list, plus the record when it is missing. Recording the asker is safe in
// the direction that matters: the record only ever keeps the named user's
// own approval from counting.
func EnsureRequester(ctx context.Context, s *core.Session, api ProposalAPI, pr hub.Pull, user, how string) error {
	if !api.IsBot(pr.User) {
		return nil
	}
	comments, err := ListAllComments(ctx, s, api, pr.Number)
	if err != nil {
		return err
	}
	if ProposalRequester(api, s.Repo.FullName(), pr, comments) != "" {
		return nil
	}
	s.Log.WithFields(logrus.Fields{"pull_request": pr.Number, "requester": user}).Warn("bot-opened pull request without a requester record: recording who asked again")
	return RecordRequester(ctx, s, api.Issues, api.RecordKey, pr.Number, user, how)
}
