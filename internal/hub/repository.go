package hub

import "time"

// Repository is a repository as a listing or a read gives it.
type Repository struct {
	Owner, Name   string
	FullName      string
	DefaultBranch string
	HTMLURL       string
	Private       bool
	// Visibility is "public", "private" or "internal" ("" when not said:
	// Private decides).
	Visibility string
	Fork       bool
	Archived   bool
	Topics     []string
	// OpenIssues counts open issues and pull requests together.
	OpenIssues int
}

// Membership is a user's membership of a team.
type Membership struct {
	// State is "active" or "pending".
	State string
	// Role is "member" or "maintainer".
	Role string
}

// Issue is an issue (the dashboard, a conflict notice).
type Issue struct {
	Number      int
	Title, Body string
	State       string
	// StateReason is why it was closed ("completed", "not_planned") or
	// reopened ("reopened").
	StateReason string
	User        User
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// ClosedAt and ClosedBy: when and by whom it was closed (zero when
	// open or not said).
	ClosedAt time.Time
	ClosedBy User
	Labels   []string
	HTMLURL  string
	// IsPull: the issue is a pull request's.
	IsPull bool
}

// IssueWrite creates or edits an issue: empty fields (a nil Labels) are
// left as they are.
type IssueWrite struct {
	Title, Body, State string
	// StateReason goes with State "closed" or "open".
	StateReason string
	Labels      []string
}

// IssueQuery filters a repository's issues.
type IssueQuery struct {
	// State is "open" (GitHub's default), "closed" or "all".
	State string
	// Creator is the login of the author ("" for any).
	Creator string
	Labels  []string
	// Sort "created", "updated" or "comments"; Direction "asc" or "desc".
	Sort, Direction string
	Page
}

// Release is a repository release.
type Release struct {
	ID              int64
	TagName, Name   string
	Body            string
	TargetCommitish string
	HTMLURL         string
	Draft           bool
	Prerelease      bool
	CreatedAt       time.Time
}

// Permission is a user's permission on a repository: Level "admin",
// "write", "read" or "none" (GitHub's permission field), Role the precise
// role ("maintain", "triage", a custom role's name; Level when not said).
type Permission struct {
	Level, Role string
}
