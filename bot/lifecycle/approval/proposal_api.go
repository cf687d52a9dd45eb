package approval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// ProposalPulls is what the proposal steps call on pull requests (a part
// of hub.API).
type ProposalPulls interface {
	ListPulls(ctx context.Context, owner, repo string, q hub.PullQuery) ([]hub.Pull, hub.Next, error)
	CreatePull(ctx context.Context, owner, repo string, p hub.NewPull) (hub.Pull, error)
	EditPull(ctx context.Context, owner, repo string, number int, e hub.PullEdit) (hub.Pull, error)
	ListReviews(ctx context.Context, owner, repo string, number int, p hub.Page) ([]hub.Review, hub.Next, error)
}

// ProposalIssues is what the proposal steps call on a pull request's issue
// side: labels and comments (a part of hub.API).
type ProposalIssues interface {
	AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error
	RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (hub.Comment, error)
	ListComments(ctx context.Context, owner, repo string, number int, q hub.CommentQuery) ([]hub.Comment, hub.Next, error)
	DeleteComment(ctx context.Context, owner, repo string, id int64) error
}

// ApprovalChecks posts the porchbot/approval check run (a part of
// hub.API).
type ApprovalChecks interface {
	CreateCheckRun(ctx context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error)
}

// ApproverRepos reads a user's permission on the repository (a part of
// hub.API).
type ApproverRepos interface {
	Permission(ctx context.Context, owner, repo, user string) (hub.Permission, error)
}

// ApproverTeams reads a user's membership of a team (a part of hub.API).
type ApproverTeams interface {
	TeamMembership(ctx context.Context, org, slug, user string) (hub.Membership, error)
}

// DefaultBotLogin is the App's bot user as GitHub (and the local forge)
// shows it: "<app slug>[bot]".
const DefaultBotLogin = "porchbot[bot]"

// ProposalAPI is the GitHub surface of the propose, approve and reject
// steps. NewProposalAPI fills it from an installation client; tests may
// replace any part.
type ProposalAPI struct {
	Pulls  ProposalPulls
	Issues ProposalIssues
	Checks ApprovalChecks
	Repos  ApproverRepos
	Teams  ApproverTeams
	// BotLogin is the App's bot user (DefaultBotLogin when empty). Only
	// comments it authored are trusted to carry /porch approve records,
	// and pull requests it opened name their requester in their body.
	BotLogin string
	// RecordKey, when set, signs /porch approve records (HMAC-SHA256 over
	// repository, pull request, user, head and digest) and makes the
	// evaluation ignore records without a valid signature: people with
	// write access can edit the bot's comments, and an edit within the
	// second of the record leaves no trace in its timestamps. Every replica
	// must use the same key (for example one derived from the webhook
	// secret). Unset, records are trusted on their author and timestamps.
	RecordKey []byte
	// Memberships, if set, reuses team membership answers across
	// evaluations for a short time (one per process).
	Memberships *MembershipCache
	// CheckList lists a head's porchbot/render runs when Renders does not
	// know them (nil: the render requirement is not applied).
	CheckList rendercheck.RenderCheckLister
	// Renders, if set, are the render states this process reported (no
	// call for them), and where evaluations that found a render
	// unfinished wait for it (one per process).
	Renders *rendercheck.RenderStates
	// Opened says the event being handled is the pull request's opening:
	// it can have no review and no /porch approve record yet, so the
	// evaluation lists neither (two calls saved per new proposal).
	Opened bool
}

// NewProposalAPI is the ProposalAPI of an installation's API.
func NewProposalAPI(api hub.API) ProposalAPI {
	return ProposalAPI{Pulls: api, Issues: api, Checks: api, Repos: api,
		Teams: api, CheckList: api, BotLogin: DefaultBotLogin}
}

func (a ProposalAPI) BotLoginOrDefault() string {
	if a.BotLogin == "" {
		return DefaultBotLogin
	}
	return a.BotLogin
}

// IsBot reports that u is the App's bot user.
func (a ProposalAPI) IsBot(u hub.User) bool {
	if !strings.EqualFold(u.Login, a.BotLoginOrDefault()) {
		return false
	}
	// GitHub (and the forge) type App users "Bot"; a login ending in
	// "[bot]" cannot be a user's, but be strict when the type is given.
	return u.Type == "" || u.Type == "Bot"
}

// IsOwnRun reports whether check run cr was written by the App: anyone
// with checks:write (a workflow, another app) can post a run of any name.
func (a ProposalAPI) IsOwnRun(cr hub.CheckRun) bool {
	slug := cr.AppSlug
	return slug != "" && strings.EqualFold(slug+"[bot]", a.BotLoginOrDefault())
}

// Errors of the proposal steps.
var (
	// ErrNotProposal: the pull request is not a proposal (its head is not a
	// draft branch of this repository, or its base not the deployment
	// branch).
	ErrNotProposal = errors.New("not a proposal")
	// ErrNoDraftBranch: /porch propose names a draft that has no branch.
	ErrNoDraftBranch = errors.New("no such draft branch")
	// ErrNothingToPropose: the draft branch has no commit that the
	// deployment branch lacks.
	ErrNothingToPropose = errors.New("the draft has no changes to propose")
)

// ParseProposal tells whether pr is a proposal of s's repository: its head
// a draft branch drafts/<package>/<workspace> of the same repository, its
// base the deployment branch. State (open, closed) and GitHub's draft flag
// are not looked at.
func ParseProposal(s *core.Session, pr hub.Pull) (pkg, workspace string, ok bool) {
	if pr.Base.Ref != s.DeploymentBranch {
		return "", "", false
	}
	if hr := pr.Head.RepoFullName; hr != "" && !strings.EqualFold(hr, s.Repo.FullName()) {
		return "", "", false // a fork's branch is not a draft of this repository
	}
	return packages.ParseDraftBranchName(pr.Head.Ref)
}

// IntoDeployment reports that pr targets the deployment branch: such a
// pull request is a proposal when it is a draft's (ParseProposal) or when
// its head adds, changes or removes a package, whatever its branch name
// and whoever opened it (issue #12).
//
// Pull requests from forks are proposals too, judged by the same verdict
// (fork.go): they are rendered with built-ins only and never pushed to, and
// their head, whatever its branch name, is no branch of the repository.
func IntoDeployment(s *core.Session, pr hub.Pull) bool {
	return pr.Base.Ref == s.DeploymentBranch &&
		(pr.Head.Ref != s.DeploymentBranch || rendercheck.IsForkPullRequest(s.Repo, pr))
}

const botMarkerPrefix = "<!-- porchbot:"

// FormatBotMarker is an HTML comment "<!-- porchbot:<kind> <json> -->":
// invisible on GitHub, readable by the bot.
func FormatBotMarker(kind string, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings
	}
	// "--" cannot appear inside an HTML comment; JSON escapes keep it out.
	s := strings.ReplaceAll(string(data), "--", `-\u002d`)
	return botMarkerPrefix + kind + " " + s + " -->"
}

// findBotMarkers returns the JSON payloads of the markers of kind in body, one
// per line.
func findBotMarkers(body, kind string) [][]byte {
	var out [][]byte
	prefix := botMarkerPrefix + kind + " "
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		if payload, ok := strings.CutSuffix(rest, " -->"); ok {
			out = append(out, []byte(payload))
		}
	}
	return out
}

// branchOf is the branch of s's repository pr's head can be fetched from
// ("" for a fork: its head is fetched as refs/pull/N/head, EnsurePullHead).
func branchOf(s *core.Session, pr hub.Pull) string {
	if rendercheck.IsForkPullRequest(s.Repo, pr) {
		return ""
	}
	return pr.Head.Ref
}
