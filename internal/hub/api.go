package hub

import "context"

// API is every call porchbot's lifecycle makes to GitHub, in porchbot's
// own values. One REST call each, but where a method says otherwise.
// internal/github.API implements it over go-github; hubtest.Fake over
// values.
type API interface {
	PullsAPI
	IssuesAPI
	ChecksAPI
	ReposAPI
	ReleasesAPI
}

// PullsAPI are the pull request calls.
type PullsAPI interface {
	ListPulls(ctx context.Context, owner, repo string, q PullQuery) ([]Pull, Next, error)
	GetPull(ctx context.Context, owner, repo string, number int) (Pull, error)
	CreatePull(ctx context.Context, owner, repo string, p NewPull) (Pull, error)
	EditPull(ctx context.Context, owner, repo string, number int, e PullEdit) (Pull, error)
	// MergePull merges; it returns the merge commit.
	MergePull(ctx context.Context, owner, repo string, number int, m Merge) (string, error)
	ListReviews(ctx context.Context, owner, repo string, number int, p Page) ([]Review, Next, error)
	// ListPullsWithCommit lists the pull requests whose head or merge is sha.
	ListPullsWithCommit(ctx context.Context, owner, repo, sha string, p Page) ([]Pull, Next, error)
	RequestReviewers(ctx context.Context, owner, repo string, number int, users, teams []string) error
}

// IssuesAPI are the issue calls: labels and comments (of pull requests
// too), and issues.
type IssuesAPI interface {
	AddLabels(ctx context.Context, owner, repo string, number int, labels []string) error
	RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error
	CreateComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error)
	ListComments(ctx context.Context, owner, repo string, number int, q CommentQuery) ([]Comment, Next, error)
	DeleteComment(ctx context.Context, owner, repo string, id int64) error
	// ReactToComment puts the App's reaction content ("eyes", "rocket", …)
	// on comment id: a compare-and-swap, GitHub answering 201 to the call
	// that makes the reaction and 200 to every later one.
	ReactToComment(ctx context.Context, owner, repo string, id int64, content string) (Reaction, error)
	ListIssues(ctx context.Context, owner, repo string, q IssueQuery) ([]Issue, Next, error)
	GetIssue(ctx context.Context, owner, repo string, number int) (Issue, error)
	CreateIssue(ctx context.Context, owner, repo string, w IssueWrite) (Issue, error)
	EditIssue(ctx context.Context, owner, repo string, number int, w IssueWrite) (Issue, error)
}

// ChecksAPI are the check run calls.
type ChecksAPI interface {
	CreateCheckRun(ctx context.Context, owner, repo string, w CheckRunWrite) (CheckRun, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w CheckRunWrite) (CheckRun, error)
	// ListCheckRuns lists the check runs of ref (a commit, branch or tag).
	ListCheckRuns(ctx context.Context, owner, repo, ref string, q CheckQuery) (CheckRuns, Next, error)
	// ListSuiteCheckRuns lists the check runs of check suite id (Name
	// and AppID of q are not applied).
	ListSuiteCheckRuns(ctx context.Context, owner, repo string, id int64, q CheckQuery) (CheckRuns, Next, error)
	// CombinedStatus is the latest commit status of each context on ref
	// (a commit, branch or tag), at most 100 of them.
	CombinedStatus(ctx context.Context, owner, repo, ref string) ([]CommitStatus, error)
}

// ReposAPI are the repository calls.
type ReposAPI interface {
	GetRepository(ctx context.Context, owner, repo string) (Repository, error)
	// CommitAuthor is the login GitHub links the author of commit sha to
	// ("" when none).
	CommitAuthor(ctx context.Context, owner, repo, sha string) (string, error)
	// Permission is user's permission on the repository (IsNotFound when
	// GitHub knows no such user).
	Permission(ctx context.Context, owner, repo, user string) (Permission, error)
	// TeamMembership is user's membership of org's team slug (IsNotFound
	// when none).
	TeamMembership(ctx context.Context, org, slug, user string) (Membership, error)
	// ListInstallationRepos lists the repositories of the installation
	// the client is for, and how many there are in all.
	ListInstallationRepos(ctx context.Context, p Page) ([]Repository, int, Next, error)
	// CreateRef creates ref (refs/heads/…, refs/tags/…) at sha; a ref
	// that exists is IsUnprocessable.
	CreateRef(ctx context.Context, owner, repo, ref, sha string) error
	// ListActivities lists a repository's activities (branch moves),
	// newest first; Next.After is the next page's cursor.
	ListActivities(ctx context.Context, owner, repo string, q ActivityQuery) ([]Activity, Next, error)
}

// ReleasesAPI are the release calls.
type ReleasesAPI interface {
	CreateRelease(ctx context.Context, owner, repo string, r Release) (Release, error)
	ListReleases(ctx context.Context, owner, repo string, p Page) ([]Release, Next, error)
	UploadReleaseAsset(ctx context.Context, owner, repo string, releaseID int64, name, mediaType string, data []byte) error
}
