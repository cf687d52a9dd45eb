package approval

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// CheckName is the check run reporting the approval policy.
const CheckName = "porchbot/approval"

// Outcome is what EvaluateApproval found and posted.
type Outcome struct {
	Number             int
	Package, Workspace string
	// Head is the evaluated head commit, HeadDigest the proposal digest
	// there (ProposalDigest), Packages every package the head changes.
	Head, HeadDigest string
	Packages         []PackageChange
	// Author is who the self-approval rule applied to.
	Author   string
	Result   Result
	CheckRun hub.CheckRun
	// Labelled is true when OnProposalEvent added porch/proposed (or
	// porch/deletion-proposed).
	Labelled bool
	// Lookups is the number of approver lookups (permission or team
	// membership calls) the evaluation made.
	Lookups int
}

// approveMarker is the durable record of a /porch approve: a marker in a
// comment by the bot. Markers in anyone else's comments are ignored.
type approveMarker struct {
	User   string `json:"user"`
	Head   string `json:"head"`
	Digest string `json:"digest,omitempty"`
	// Orphans: `/porch approve --orphan-downstreams` (approval_orphans.go).
	Orphans bool `json:"orphans,omitempty"`
	// Sig is the record's HMAC under ProposalAPI.RecordKey, if any.
	Sig string `json:"sig,omitempty"`
}

// approveSignature is the hex HMAC-SHA256 of a record of pull request n of
// repo under key.
func approveSignature(key []byte, repo string, n int, m approveMarker) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "porchbot:approve\x00%s\x00%d\x00%s\x00%s\x00%s",
		strings.ToLower(repo), n, strings.ToLower(m.User), strings.ToLower(m.Head), m.Digest)
	if m.Orphans {
		// Signed too, so that a record cannot be made an acknowledgement
		// (records without it keep the signature they had).
		fmt.Fprint(mac, "\x00orphans")
	}
	return hex.EncodeToString(mac.Sum(nil))
}

const (
	approveMarkerKind = "approve"
	// digestAbsent is the digest of a package missing at a commit.
	digestAbsent = "absent"
	// propMaxListPages bounds the pagination of reviews and comments.
	propMaxListPages = 30
	// approvalMaxSummary is GitHub's bound on a check run's summary.
	approvalMaxSummary = 65535
)

// RecordCommandApproval records `/porch approve` by user on pull request
// prNumber at head: a bot comment "Approved by @user at <head>" carrying a
// marker <!-- porchbot:approve {"user":…,"head":…,"digest":…} --> that
// EvaluateApproval reads back (one REST call). The record is unconditional:
// whether it counts (approver, self-approval, stale content) is decided by
// the evaluation, which the caller runs next. The digest is the proposal
// digest at head (proposalDigestAt).
func RecordCommandApproval(ctx context.Context, s *core.Session, api ProposalAPI, prNumber int, user string, head plumbing.Hash) (Record, error) {
	return RecordCommandApprovalOf(ctx, s, api, prNumber, CommandApproval{User: user, Head: head})
}

// CommandApproval is one `/porch approve`: who, at which head, and whether
// it acknowledges the downstream packages a deletion orphans
// (--orphan-downstreams).
type CommandApproval struct {
	User              string
	Head              plumbing.Hash
	OrphanDownstreams bool
}

// RecordCommandApprovalOf is RecordCommandApproval of a CommandApproval:
// an acknowledgement of orphaned downstreams is part of the signed record
// and of the comment's words.
func RecordCommandApprovalOf(ctx context.Context, s *core.Session, api ProposalAPI, prNumber int, ca CommandApproval) (Record, error) {
	user, head := strings.TrimPrefix(strings.TrimSpace(ca.User), "@"), ca.Head
	if user == "" || head.IsZero() || prNumber <= 0 {
		return Record{}, fmt.Errorf("record approval: need a user, a head and a pull request (got %q, %s, #%d)", user, head, prNumber)
	}
	digest, err := proposalDigestAt(ctx, s, head)
	if err != nil {
		return Record{}, fmt.Errorf("record approval of #%d: %w", prNumber, err)
	}
	m := approveMarker{User: user, Head: head.String(), Digest: digest, Orphans: ca.OrphanDownstreams}
	if len(api.RecordKey) > 0 {
		m.Sig = approveSignature(api.RecordKey, s.Repo.FullName(), prNumber, m)
	}
	how := "`/porch approve`"
	if ca.OrphanDownstreams {
		how = "`/porch approve --" + OrphanFlag + "`, acknowledging the downstream packages the deletion leaves without their upstream"
	}
	body := fmt.Sprintf("Approved by @%s at %s (%s).\n\n%s\n", user, head, how,
		FormatBotMarker(approveMarkerKind, m))
	c, err := api.Issues.CreateComment(ctx, s.Repo.Owner, s.Repo.Name, prNumber, body)
	if err != nil {
		return Record{}, fmt.Errorf("record approval of #%d by %s: %w", prNumber, user, err)
	}
	s.Log.WithFields(logrus.Fields{"pull_request": prNumber, "user": user, "head": head.String(),
		"comment": c.ID, "orphan_downstreams": ca.OrphanDownstreams}).Info("approval recorded")
	return Record{Comment: c.ID}, nil
}

// Record is the comment that holds a /porch approve record.
type Record struct{ Comment int64 }

// WithdrawApprovalRecord deletes a record the verdict did not count
// (self-approval, not an approver): the command's reply says why, and
// the pull request keeps one comment for the command, not two. A record
// that cannot be deleted stays, still not counted.
func WithdrawApprovalRecord(ctx context.Context, s *core.Session, api ProposalAPI, rec Record) {
	if rec.Comment == 0 {
		return
	}
	if err := api.Issues.DeleteComment(ctx, s.Repo.Owner, s.Repo.Name, rec.Comment); err != nil {
		s.Log.WithError(err).WithField("comment", rec.Comment).Warn("a /porch approve record that does not count was not deleted")
	}
}

// proposalDigestAt is the proposal digest at head: the content digests of
// every package head changes against its merge base with the deployment
// branch (ProposalDigest). It lets an approval survive a rewrite that
// drops head from the branch.
func proposalDigestAt(ctx context.Context, s *core.Session, head plumbing.Hash) (string, error) {
	base, err := ProposalBase(ctx, s, hub.Pull{})
	if err != nil {
		return "", err
	}
	var d string
	err = s.Git.With(ctx, func(repo *git.Repository) error {
		sc, err := newProposalScope(ctx, repo, s.Config.Packages.Root, base, head, "")
		if err != nil {
			return err
		}
		d = proposalDigestOf(sc.pkgs)
		return nil
	})
	if errors.Is(err, core.ErrLandingCommitMissing) {
		return "", nil
	}
	return d, err
}

// propListReviews lists a pull request's reviews, paginating only when GitHub
// says there is more.
func propListReviews(ctx context.Context, s *core.Session, api ProposalAPI, n int) ([]hub.Review, error) {
	var all []hub.Review
	opts := hub.Page{PerPage: 100}
	for range propMaxListPages {
		page, next, err := api.Pulls.ListReviews(ctx, s.Repo.Owner, s.Repo.Name, n, opts)
		if err != nil {
			return nil, fmt.Errorf("list reviews of #%d: %w", n, err)
		}
		all = append(all, page...)
		if next.Page == 0 {
			break
		}
		opts.Number = next.Page
	}
	return all, nil
}

// propListComments lists a pull request's issue comments, paginating only
// when GitHub says there is more.
func ListAllComments(ctx context.Context, s *core.Session, api ProposalAPI, n int) ([]hub.Comment, error) {
	var all []hub.Comment
	opts := hub.CommentQuery{Page: hub.Page{PerPage: 100}}
	for range propMaxListPages {
		page, next, err := api.Issues.ListComments(ctx, s.Repo.Owner, s.Repo.Name, n, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments of #%d: %w", n, err)
		}
		all = append(all, page...)
		if next.Page == 0 {
			break
		}
		opts.Number = next.Page
	}
	return all, nil
}

// reviewVotes turns reviews into votes: APPROVED, CHANGES_REQUESTED and
// DISMISSED count, COMMENTED and PENDING do not.
func reviewVotes(reviews []hub.Review) []Vote {
	var out []Vote
	for _, rv := range reviews {
		st := VoteState(rv.State)
		if st != VoteApproved && st != VoteChangesRequested && st != VoteDismissed {
			continue
		}
		out = append(out, Vote{User: rv.User.Login, State: st, Source: VoteFromReview,
			Commit: strings.ToLower(rv.CommitID), At: rv.SubmittedAt})
	}
	return out
}

// commandVotes reads /porch approve records of pull request n from the
// bot's own comments. A marker in a comment by anyone else, in a bot
// comment edited after it was written (people with write access can edit
// any comment), or, with a RecordKey, without a valid signature, is
// ignored. The recorded digest is returned by commit, for commits the
// cache may lack.
func commandVotes(api ProposalAPI, repo string, n int, comments []hub.Comment, log logrus.FieldLogger) ([]Vote, map[string]string) {
	var out []Vote
	digests := map[string]string{}
	for _, c := range comments {
		markers := findBotMarkers(c.Body, approveMarkerKind)
		if len(markers) == 0 {
			continue
		}
		if !api.IsBot(c.User) {
			log.WithFields(logrus.Fields{"comment": c.ID, "user": c.User.Login}).
				Warn("ignoring an approval marker in a comment not written by the bot")
			continue
		}
		if botCommentEdited(c) {
			log.WithField("comment", c.ID).Warn("ignoring an approval record edited after it was written")
			continue
		}
		for _, raw := range markers {
			var m approveMarker
			if err := json.Unmarshal(raw, &m); err != nil || m.User == "" || len(m.Head) != 40 || !plumbing.IsHash(m.Head) {
				continue
			}
			if len(api.RecordKey) > 0 {
				want := approveSignature(api.RecordKey, repo, n, approveMarker{User: m.User, Head: m.Head, Digest: m.Digest, Orphans: m.Orphans})
				if !hmac.Equal([]byte(want), []byte(strings.ToLower(m.Sig))) {
					log.WithField("comment", c.ID).Warn("ignoring an approval record without a valid signature")
					continue
				}
			}
			head := strings.ToLower(m.Head)
			out = append(out, Vote{User: m.User, State: VoteApproved, Source: VoteFromCommand, Commit: head,
				At: c.CreatedAt, OrphanAck: m.Orphans})
			if m.Digest != "" {
				digests[head] = m.Digest
			}
		}
	}
	return out, digests
}

// EvaluateApproval judges a proposal under the repository's approval
// policy (Verdict on the facts gatherProposalFacts reads) and posts the
// check run porchbot/approval on its head, which only prints the verdict:
//   - reviews (one call) and the bot's /porch approve and requester records
//     among the issue comments (one call, none without comments) give the
//     votes and the requester; more pages only past 100 of either;
//   - every package the head changes against its merge base with the
//     deployment branch is judged; an approval given on another commit
//     counts when the content digest of each of them is the same there
//     (for a commit the cache lacks, the digest its /porch approve record
//     carries);
//   - approvers are resolved only for users whose approval could count:
//     no call for logins listed in approvals.approvers, one per user and
//     team for "@org/team" entries, one per user when the list is empty;
//   - readiness gates are read from the changed packages' Kptfiles at the
//     head.
//
// The check concludes success (policy met), failure (a readiness gate is
// not met) or action_required (approvals missing). A pull request that is
// not an open proposal (IntoDeployment; a branch that changes no package)
// gives (nil, nil). With plain-login approvers and no comment on the pull
// request, the evaluation makes 2 REST calls.
func EvaluateApproval(ctx context.Context, s *core.Session, api ProposalAPI, pr hub.Pull) (*Outcome, error) {
	pkg, ws, draft := ParseProposal(s, pr)
	if !IntoDeployment(s, pr) || pr.State != "open" {
		return nil, nil
	}
	n := pr.Number
	head := strings.ToLower(pr.Head.SHA)
	log := s.Log.WithFields(logrus.Fields{"pull_request": n, "package": pkg, "workspace": ws, "head": head})
	if len(head) != 40 || !plumbing.IsHash(head) {
		return nil, fmt.Errorf("approval of #%d: head sha %q is not a commit id", n, head)
	}
	if err := EnsurePullRequestHead(ctx, s, pr); err != nil {
		return nil, fmt.Errorf("approval of #%d: %w", n, err)
	}
	base, err := ProposalBase(ctx, s, pr)
	if err != nil {
		return nil, fmt.Errorf("approval of #%d: %w", n, err)
	}
	facts, err := GatherProposalFacts(ctx, s, api, pr, head, base)
	if err != nil {
		return nil, fmt.Errorf("approval of #%d: %w", n, err)
	}
	if !draft {
		if len(facts.Changes) == 0 {
			return nil, nil // a branch that changes no package is no proposal
		}
		pkg = facts.Changes[0].Name
	}
	res, in, err := Verdict(ctx, s.Config.Approvals, facts)
	if err != nil {
		return nil, fmt.Errorf("approval of #%d: %w", n, err)
	}
	if in.Render == rendercheck.RenderPending || in.Render == rendercheck.RenderUnknown {
		api.Renders.Wait(s.Repo.FullName(), head, n) // judged again when a render finishes here
	}
	run, err := postApprovalCheck(ctx, s, api, pr, head, res)
	if err != nil {
		return nil, err
	}
	counted := make([]string, len(res.Approvers))
	for i, a := range res.Approvers {
		counted[i] = a.User
	}
	log.WithFields(logrus.Fields{"satisfied": res.Satisfied, "approvers": counted, "ignored": len(res.Ignored),
		"missing_gates": len(res.MissingGates), "packages": len(in.Packages), "lookups": facts.resolver.Lookups()}).Info("approval evaluated")
	return &Outcome{Number: n, Package: pkg, Workspace: ws, Head: head, HeadDigest: in.HeadDigest,
		Packages: in.Packages, Author: in.Author, Result: res, CheckRun: run, Lookups: facts.resolver.Lookups()}, nil
}

// propEnsureCommit makes sure the cache has commit sha, fetching branch once
// if not (the event may be newer than the session's fetch).
func EnsureCommit(ctx context.Context, s *core.Session, sha, branch string) error {
	_, err := s.ResolveRef(ctx, sha)
	if err == nil || !errors.Is(err, gitstore.ErrNotFound) || branch == "" {
		return err
	}
	if ferr := s.Git.Fetch(ctx, gitstore.BranchRefSpec(branch)); ferr != nil {
		return fmt.Errorf("head %s not in the cache; fetch %s: %w", sha, branch, ferr)
	}
	if _, err := s.ResolveRef(ctx, sha); err != nil {
		return fmt.Errorf("head %s: %w", sha, err)
	}
	return nil
}

// postApprovalCheck creates the porchbot/approval check run (one call).
func postApprovalCheck(ctx context.Context, s *core.Session, api ProposalAPI, pr hub.Pull, head string, res Result) (hub.CheckRun, error) {
	conclusion, title := "success", ""
	switch {
	case len(res.MissingGates) > 0:
		conclusion = "failure"
		names := make([]string, len(res.MissingGates))
		for i, g := range res.MissingGates {
			names[i] = g.ConditionType
		}
		title = "Readiness gates not met: " + strings.Join(names, ", ")
		if !res.Satisfied && len(res.Approvers) < res.Required {
			title += fmt.Sprintf("; approvals %d/%d", len(res.Approvers), res.Required)
		}
	case res.OrphanProblem != "" && len(res.Approvers) >= res.Required:
		conclusion = "action_required"
		title = "Deletes a package others use: waiting for /porch approve --" + OrphanFlag
	case !res.Satisfied:
		conclusion = "action_required"
		title = fmt.Sprintf("Waiting for approval (%d/%d)", len(res.Approvers), res.Required)
		if res.OrphanProblem != "" {
			title += " and /porch approve --" + OrphanFlag
		}
	case res.Required <= 0:
		title = "No approval required"
	default:
		title = fmt.Sprintf("Approved (%d/%d)", len(res.Approvers), res.Required)
	}
	summary := res.Markdown(s.Config.Approvals)
	if s.ConfigErr != nil {
		summary += fmt.Sprintf("\n> [!WARNING]\n> The repository configuration on %s is invalid; the last good one applies: %s.\n\n%s",
			mdquote.Code(s.DeploymentBranch), s.ConfigVersion(), mdquote.Fence(s.ConfigErr.Error()))
	}
	summary = mdquote.TruncateRunes(summary, approvalMaxSummary, "\n\n… (truncated)")
	w := hub.CheckRunWrite{
		Name: CheckName, HeadSHA: head,
		ExternalID: fmt.Sprintf("%s#%d", s.Repo.FullName(), pr.Number),
		Status:     "completed", Conclusion: conclusion, CompletedAt: time.Now().UTC(),
		Output: &hub.CheckOutput{Title: title, Summary: summary},
	}
	if conclusion == "action_required" {
		w.DetailsURL = pr.HTMLURL
	}
	run, err := api.Checks.CreateCheckRun(ctx, s.Repo.Owner, s.Repo.Name, w)
	if err != nil {
		return hub.CheckRun{}, fmt.Errorf("approval of #%d: check run: %w", pr.Number, err)
	}
	return run, nil
}
