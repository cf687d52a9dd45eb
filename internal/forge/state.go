package forge

import (
	"encoding/json"
	"sync"
	"time"
)

// Account is a user, an organisation or a bot user (the App's
// "<slug>[bot]"). Its Type is GitHub's: "User", "Organization" or "Bot".
type Account struct {
	ID    int64
	Login string
	Type  string
	Name  string
	Email string
	Token string // personal access token; empty for organisations
}

// Org is an organisation: an account with members and teams.
type Org struct {
	Account *Account
	Members map[string]bool // lower-cased login -> member
	Teams   map[string]*Team
}

// Team is an organisation team; "@org/slug" in configuration.
type Team struct {
	ID      int64
	Slug    string
	Name    string
	Members map[string]bool // lower-cased login

	Maintainers map[string]bool // lower-cased login; a subset of Members
}

// Permission is a repository permission, ordered: none < read < triage <
// write < maintain < admin.
type Permission int

// The permissions GitHub knows, in order.
const (
	PermNone Permission = iota
	PermRead
	PermTriage
	PermWrite
	PermMaintain
	PermAdmin
)

var permissionNames = []string{"none", "read", "triage", "write", "maintain", "admin"}

func (p Permission) String() string {
	if p < 0 || int(p) >= len(permissionNames) {
		return "none"
	}
	return permissionNames[p]
}

// ParsePermission reads GitHub's names of permissions (also "pull"/"push"
// as the REST API accepts them).
func ParsePermission(s string) (Permission, bool) {
	switch s {
	case "pull":
		return PermRead, true
	case "push":
		return PermWrite, true
	}
	for i, n := range permissionNames {
		if n == s {
			return Permission(i), true
		}
	}
	return PermNone, false
}

// Repo is a repository: metadata here, objects and refs in a bare git
// repository at Path. Its mutex guards everything below it and serialises
// ref updates made through the REST API, pushes and merges.
type Repo struct {
	mu sync.Mutex

	ID            int64
	Owner         *Account
	Name          string
	Description   string
	Private       bool
	DefaultBranch string
	Topics        []string
	Path          string // bare git repository on disk
	CreatedAt     time.Time
	UpdatedAt     time.Time
	PushedAt      time.Time

	Collaborators map[string]Permission // lower-cased login -> permission
	// Parent is the repository this one is a fork of (nil: not a fork);
	// ForkCount is how many forks this one has.
	Parent    *Repo
	ForkCount int

	nextNumber int // issues and pull requests share one number space
	Issues     map[int]*Issue
	Pulls      map[int]*Pull
	Comments   map[int64]*Comment
	Reviews    map[int64]*Review
	Labels     map[string]*Label // lower-cased name
	CheckRuns  map[int64]*CheckRun
	Suites     map[int64]*CheckSuite
	Releases   map[int64]*Release
	Reactions  map[int64]*Reaction
	Statuses   []*CommitStatus // oldest first
	// Deployments are GitHub deployments, oldest first
	// (api_deployments.go).
	Deployments []*Deployment
	// Protections are the protected branches' rules (protection.go).
	Protections map[string]*BranchProtection

	ReviewComments map[int64]*ReviewComment // created when first needed
	IssueEvents    []*IssueEvent            // oldest first
	Activities     []*Activity              // oldest first (activity.go)
}

// FullName is "owner/name".
func (r *Repo) FullName() string { return r.Owner.Login + "/" + r.Name }

// Issue is an issue or the issue half of a pull request.
type Issue struct {
	ID        int64
	Number    int
	Title     string
	Body      string
	State     string // open | closed
	User      *Account
	Labels    []string // label names, in the order added
	Assignees []string
	Locked    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	ClosedAt  *time.Time
	// ClosedBy is who closed the issue last (nil while open or unknown).
	ClosedBy *Account
	IsPull   bool
}

// Pull is a pull request; its number and conversation live in an Issue.
type Pull struct {
	Issue *Issue

	ID   int64
	Head string // branch name in HeadRepo
	// HeadRepo is the fork the head branch is in (nil: this repository).
	// A fork's head is copied into this repository as refs/pull/<N>/head,
	// as GitHub publishes every pull request's head.
	HeadRepo            *Repo
	HeadSHA             string
	Base                string
	BaseSHA             string
	Draft               bool
	Merged              bool
	MergedAt            *time.Time
	MergedBy            *Account
	MergeCommitSHA      string
	MaintainerCanModify bool
	RequestedReviewers  []string
}

// Comment is an issue (or pull request conversation) comment.
type Comment struct {
	ID        int64
	IssueNum  int
	Body      string
	User      *Account
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Review is a pull request review.
type Review struct {
	ID          int64
	PullNum     int
	User        *Account
	Body        string
	State       string // APPROVED | CHANGES_REQUESTED | COMMENTED | PENDING | DISMISSED
	CommitID    string
	SubmittedAt time.Time
}

// Label is a repository label.
type Label struct {
	ID          int64
	Name        string
	Color       string
	Description string
}

// CheckSuite groups the check runs of one app on one head commit.
type CheckSuite struct {
	ID         int64
	HeadBranch string
	HeadSHA    string
	Status     string
	Conclusion string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Before     string // the push that requested it: ref value before and after
	After      string
}

// CheckRun is a check run created by the App.
type CheckRun struct {
	ID          int64
	SuiteID     int64
	Name        string
	HeadSHA     string
	ExternalID  string
	DetailsURL  string
	Status      string // queued | in_progress | completed
	Conclusion  string
	StartedAt   *time.Time
	CompletedAt *time.Time
	Title       string
	Summary     string
	Text        string
	Annotations []CheckAnnotation
}

// CheckAnnotation is one annotation of a check run's output.
type CheckAnnotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
	StartColumn     int    `json:"start_column,omitempty"`
	EndColumn       int    `json:"end_column,omitempty"`
	RawDetails      string `json:"raw_details,omitempty"`
}

// Release is a GitHub release of a tag.
type Release struct {
	ID          int64
	TagName     string
	Target      string
	Name        string
	Body        string
	Draft       bool
	Prerelease  bool
	Author      *Account
	CreatedAt   time.Time
	PublishedAt *time.Time
	// Assets are the uploaded files, oldest first (api_release_assets.go);
	// the slice is replaced, never changed in place.
	Assets []*ReleaseAsset
}

// ReviewComment is a pull request review comment on a line of a file.
type ReviewComment struct {
	ID        int64
	PullNum   int
	ReviewID  int64
	InReplyTo int64
	Path      string
	CommitID  string
	Line      int
	Side      string // LEFT | RIGHT
	Position  int    // the line's position in the file's diff
	DiffHunk  string
	Body      string
	User      *Account
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IssueEvent is something that happened to an issue or pull request
// (closed, labeled, merged, ...), as GitHub's issue events API lists it.
type IssueEvent struct {
	ID         int64
	IssueNum   int
	Event      string
	Actor      *Account
	CreatedAt  time.Time
	CommitID   string   // merged, closed by a merge
	Label      *Label   // labeled, unlabeled
	Subject    *Account // assignee, or requested reviewer
	RenameFrom string   // renamed
	RenameTo   string
}

// CommitStatus is a commit status (the Statuses API) on a commit.
type CommitStatus struct {
	ID          int64
	SHA         string
	State       string // error | failure | pending | success
	Context     string
	TargetURL   string
	Description string
	Creator     *Account
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Deployment is a GitHub deployment: a request to deploy a commit to an
// environment, and the statuses its deployer reported.
type Deployment struct {
	ID   int64
	SHA  string // the commit Ref named when it was created
	Ref  string // as given: a branch, tag or sha
	Task string
	// Payload is the deployer's JSON: an object, or a string.
	Payload json.RawMessage
	// Environment is the latest a status named; OriginalEnvironment the
	// one it was created for.
	Environment, OriginalEnvironment string
	Description                      string
	Transient, Production            bool
	Creator                          *Account
	ViaApp                           bool // created with the App's installation token
	CreatedAt, UpdatedAt             time.Time
	Statuses                         []*DeploymentStatus // oldest first
}

// DeploymentStatus is one status of a deployment.
type DeploymentStatus struct {
	ID                                int64
	State                             string // error | failure | inactive | in_progress | queued | pending | success
	Description, Environment          string
	TargetURL, LogURL, EnvironmentURL string
	Creator                           *Account
	ViaApp                            bool
	CreatedAt, UpdatedAt              time.Time
}

// Reaction is a reaction to an issue comment (or issue: SubjectKind).
type Reaction struct {
	ID          int64
	SubjectKind string // "comment" | "issue"
	SubjectID   int64  // comment id, or issue number
	User        *Account
	Content     string
	CreatedAt   time.Time
}

// Installation is the App installed on an account: every repository of
// that account is reachable with its tokens.
type Installation struct {
	ID      int64
	Account *Account
}

// AppInfo describes the GitHub App registered on the forge.
type AppInfo struct {
	ID            int64
	Slug          string
	Name          string
	Owner         *Account
	Bot           *Account // "<slug>[bot]"
	PublicKeyPEM  []byte
	WebhookURL    string
	WebhookSecret []byte
	// Events are the events the App subscribes to (its registration's
	// default_events); nil: the forge's default list (appEvents).
	Events []string
	// ClientID and ClientSecret authenticate the App's OAuth web flow
	// (user authorization, web_oauth.go); CallbackURLs are the URLs its
	// redirect_uri may name (SetAppCallbackURLs).
	ClientID, ClientSecret string
	CallbackURLs           []string
}
