package approval

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/hub"
)

// A requester record in the pull request's body, for the pull requests
// porchbot opens on a branch it has just pushed (update pull requests): it
// costs no call of its own, since the body is written when the pull
// request is made.
//
//	<!-- porchbot:requester-at {"user":"alice","commit":"<sha>","sig":"…"} -->
//
// The body is editable, so the record counts only when:
//   - its HMAC (RecordKey) over repository, head branch, commit and user
//     is valid: nobody without the key can write one;
//   - its commit is one of the pull request's own commits: reachable from
//     the head and not from the head's merge base with the deployment
//     branch. A record copied from another pull request names a commit
//     that is not in this one; one copied from a pull request that was
//     merged names a commit the merge base already holds.
//
// Deleting it leaves the requester unknown, which blocks approval
// (approval_requirements.go), as a deleted comment record does.

const requesterAtMarkerKind = "requester-at"

type requesterAtMarker struct {
	User   string `json:"user"`
	Commit string `json:"commit"`
	Sig    string `json:"sig"`
}

// OwnCommit reports whether a commit is one of a pull request's own.
type OwnCommit func(sha string) bool

func requesterAtSignature(key []byte, repo, headRef, commit, user string) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "porchbot:requester-at\x00%s\x00%s\x00%s\x00%s", strings.ToLower(repo), headRef, strings.ToLower(commit), strings.ToLower(user))
	return hex.EncodeToString(mac.Sum(nil))
}

// RequesterAtRecord is the body line recording that user asked for the
// pull request of branch headRef, whose commit porchbot made.
func RequesterAtRecord(key []byte, repo, headRef, commit, user string) string {
	user = strings.TrimPrefix(strings.TrimSpace(user), "@")
	return FormatBotMarker(requesterAtMarkerKind, requesterAtMarker{User: user, Commit: commit,
		Sig: requesterAtSignature(key, repo, headRef, commit, user)})
}

// BodyRequester is the user of the first valid requester-at record of
// pr's body ("" when none is valid).
func BodyRequester(key []byte, repo string, pr hub.Pull, own OwnCommit) string {
	if len(key) == 0 || own == nil {
		return ""
	}
	for _, raw := range findBotMarkers(pr.Body, requesterAtMarkerKind) {
		var m requesterAtMarker
		if json.Unmarshal(raw, &m) != nil || m.User == "" || !plumbing.IsHash(m.Commit) {
			continue
		}
		want := requesterAtSignature(key, repo, pr.Head.Ref, m.Commit, m.User)
		if hmac.Equal([]byte(want), []byte(strings.ToLower(m.Sig))) && own(m.Commit) {
			return m.User
		}
	}
	return ""
}

// OwnCommitsOf tells the pull request's own commits from the git cache: a
// commit reachable from head and not from head's merge base with base (the
// deployment branch's head, or a landing's first parent).
func OwnCommitsOf(ctx context.Context, s *core.Session, head string, base plumbing.Hash) OwnCommit {
	return func(sha string) bool {
		own := false
		err := s.Git.With(ctx, func(r *git.Repository) error {
			c, err := r.CommitObject(plumbing.NewHash(sha))
			if err != nil {
				return err
			}
			h, err := r.CommitObject(plumbing.NewHash(head))
			if err != nil {
				return err
			}
			if c.Hash != h.Hash {
				if in, err := c.IsAncestor(h); err != nil || !in {
					return err
				}
			}
			if !base.IsZero() {
				b, err := r.CommitObject(base)
				if err != nil {
					return err
				}
				bases, err := h.MergeBase(b)
				if err != nil {
					return err
				}
				for _, mb := range bases {
					if mb.Hash == c.Hash {
						return nil
					}
					if in, err := c.IsAncestor(mb); err != nil || in {
						return err
					}
				}
			}
			own = true
			return nil
		})
		if err != nil {
			s.Log.WithError(err).WithField("commit", sha).Debug("requester record's commit not found: the record does not count")
		}
		return own
	}
}
