package hub

import (
	"strings"
	"time"
)

// User is a GitHub account as an event or a listing names it.
type User struct {
	Login string
	// Type is "User", "Bot" or "Organization" ("" when not said).
	Type string
}

// Branch is one side of a pull request: a branch, its commit, and the
// repository it lives in (RepoFullName "" when the repository is gone,
// as a deleted fork's).
type Branch struct {
	Ref, SHA string
	// Label is "owner:ref".
	Label string
	// RepoOwner and RepoName name the branch's repository.
	RepoOwner, RepoName string
	// RepoFullName is "owner/name".
	RepoFullName string
	// RepoHTMLURL is the repository's web page.
	RepoHTMLURL string
	// RepoPrivate: the branch's repository is private.
	RepoPrivate bool
	// RepoFork: the branch's repository is a fork.
	RepoFork bool
}

// HasRepo reports that the branch's repository is known.
func (b Branch) HasRepo() bool { return b.RepoFullName != "" }

// Pull is a pull request.
type Pull struct {
	Number      int
	Title, Body string
	// State is "open" or "closed".
	State  string
	Draft  bool
	Merged bool
	// MergedAt is zero when not merged.
	MergedAt       time.Time
	MergeCommitSHA string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	User           User
	Head, Base     Branch
	Labels         []string
	HTMLURL        string
	// Comments is how many issue comments the pull request has (nil when
	// not said: listings do not say it).
	Comments *int
}

// IsOpen reports that the pull request is open.
func (p Pull) IsOpen() bool { return p.State == "open" }

// HasLabel reports whether the pull request carries label name
// (case-insensitive, as GitHub).
func (p Pull) HasLabel(name string) bool { return HasLabel(p.Labels, name) }

// HasLabel reports whether labels hold name (case-insensitive, as GitHub).
func HasLabel(labels []string, name string) bool {
	for _, l := range labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

// Review is a pull request review.
type Review struct {
	ID   int64
	User User
	// State is "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"
	// or "PENDING".
	State       string
	CommitID    string
	Body        string
	SubmittedAt time.Time
}

// Comment is an issue (or pull request) comment.
type Comment struct {
	ID      int64
	User    User
	Body    string
	HTMLURL string
	// IssueURL is the API address of the comment's issue or pull request
	// (…/issues/N).
	IssueURL  string
	CreatedAt time.Time
	UpdatedAt time.Time
}
