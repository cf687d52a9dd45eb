package approval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/packages"
)

// ProposalPulls is what the proposal steps call on pull requests
// (satisfied by github.Client.PullRequests).
type ProposalPulls interface {
	List(ctx context.Context, owner, repo string, opts *github.PullRequestListOptions) ([]*github.PullRequest, *github.Response, error)
	Create(ctx context.Context, owner, repo string, pull *github.NewPullRequest) (*github.PullRequest, *github.Response, error)
	Edit(ctx context.Context, owner, repo string, number int, pull *github.PullRequest) (*github.PullRequest, *github.Response, error)
	ListReviews(ctx context.Context, owner, repo string, number int, opts *github.ListOptions) ([]*github.PullRequestReview, *github.Response, error)
}

// ProposalIssues is what the proposal steps call on a pull request's issue
// side: labels and comments (satisfied by github.Client.Issues).
type ProposalIssues interface {
	AddLabelsToIssue(ctx context.Context, owner, repo string, number int, labels []string) ([]*github.Label, *github.Response, error)
	RemoveLabelForIssue(ctx context.Context, owner, repo string, number int, label string) (*github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
	ListComments(ctx context.Context, owner, repo string, number int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error)
	DeleteComment(ctx context.Context, owner, repo string, commentID int64) (*github.Response, error)
}

// ApprovalChecks posts the porchbot/approval check run (satisfied by
// github.Client.Checks).
type ApprovalChecks interface {
	CreateCheckRun(ctx context.Context, owner, repo string, opts github.CreateCheckRunOptions) (*github.CheckRun, *github.Response, error)
}

// ApproverRepos reads a user's permission on the repository (satisfied by
// github.Client.Repositories).
type ApproverRepos interface {
	GetPermissionLevel(ctx context.Context, owner, repo, user string) (*github.RepositoryPermissionLevel, *github.Response, error)
}

// ApproverTeams reads a user's membership of a team (satisfied by
// github.Client.Teams).
type ApproverTeams interface {
	GetTeamMembershipBySlug(ctx context.Context, org, slug, user string) (*github.Membership, *github.Response, error)
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

// NewProposalAPI is the ProposalAPI of an installation client.
func NewProposalAPI(gh *github.Client) ProposalAPI {
	return ProposalAPI{Pulls: gh.PullRequests, Issues: gh.Issues, Checks: gh.Checks, Repos: gh.Repositories,
		Teams: gh.Teams, CheckList: gh.Checks, BotLogin: DefaultBotLogin}
}

func (a ProposalAPI) BotLoginOrDefault() string {
	if a.BotLogin == "" {
		return DefaultBotLogin
	}
	return a.BotLogin
}

// IsBot reports that u is the App's bot user.
func (a ProposalAPI) IsBot(u *github.User) bool {
	if u == nil || !strings.EqualFold(u.GetLogin(), a.BotLoginOrDefault()) {
		return false
	}
	// GitHub (and the forge) type App users "Bot"; a login ending in
	// "[bot]" cannot be a user's, but be strict when the type is given.
	return u.Type == nil || u.GetType() == "Bot"
}

// IsOwnRun reports whether check run cr was written by the App: anyone
// with checks:write (a workflow, another app) can post a run of any name.
func (a ProposalAPI) IsOwnRun(cr *github.CheckRun) bool {
	slug := cr.GetApp().GetSlug()
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
func ParseProposal(s *core.Session, pr *github.PullRequest) (pkg, workspace string, ok bool) {
	if pr == nil || pr.GetBase().GetRef() != s.DeploymentBranch {
		return "", "", false
	}
	if hr := pr.GetHead().GetRepo(); hr != nil && hr.GetFullName() != "" && !strings.EqualFold(hr.GetFullName(), s.Repo.FullName()) {
		return "", "", false // a fork's branch is not a draft of this repository
	}
	return packages.ParseDraftBranchName(pr.GetHead().GetRef())
}

// IntoDeployment reports that pr targets the deployment branch: such a
// pull request is a proposal when it is a draft's (ParseProposal) or when
// its head adds, changes or removes a package, whatever its branch name
// and whoever opened it (issue #12).
//
// Pull requests from forks are proposals too, judged by the same verdict
// (fork.go): they are rendered with built-ins only and never pushed to, and
// their head, whatever its branch name, is no branch of the repository.
func IntoDeployment(s *core.Session, pr *github.PullRequest) bool {
	return pr != nil && pr.GetBase().GetRef() == s.DeploymentBranch &&
		(pr.GetHead().GetRef() != s.DeploymentBranch || rendercheck.IsForkPullRequest(s.Repo, pr))
}

// PropHasLabel reports whether labels hold name (case-insensitive, as GitHub).
func PropHasLabel(labels []*github.Label, name string) bool {
	for _, l := range labels {
		if strings.EqualFold(l.GetName(), name) {
			return true
		}
	}
	return false
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
func branchOf(s *core.Session, pr *github.PullRequest) string {
	if rendercheck.IsForkPullRequest(s.Repo, pr) {
		return ""
	}
	return pr.GetHead().GetRef()
}
